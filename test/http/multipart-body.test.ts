import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { multipartForm } from '../helpers/multipart.js';

describeEachEngine('multipart bodies: a malformed one is answered, never left hanging', (t) => {
  it('answers every truncated or ill-bounded upload below 500, whatever the storage is doing meanwhile', async () => {
    const { payload } = multipartForm([{ name: 'file', filename: 'customers.csv', contentType: 'text/csv', data: '\ufeffcustomerType,fullName,email\r\nINDIVIDUAL,"Lovelace, Ada",ada@example.com\r\n' }], 'BOUNDARY');
    const text = payload.toString('latin1');
    const bodies: [string, string][] = [];
    for (let i = 0; i < text.length; i += 7) bodies.push([`cut ${i}`, text.slice(0, i)]);
    bodies.push(['no end', text.replace(/--BOUNDARY--\r\n$/, '')], ['other', text.replaceAll('BOUNDARY', 'OTHER')], ['disp', text.replace('Content-Disposition: form-data; ', 'Content-Disposition: ')], ['lf', text.replace(/\r\n/g, '\n')]);
    const stuck: string[] = [];
    // Hanging means never answered: 10 s tells that apart from a slow answer on a loaded machine (2 s did not, once, for the very first request).
    for (const path of ['/customers/bulk/csv', '/documents']) {
      for (const [name, body] of bodies) {
        for (const ct of ['multipart/form-data; boundary=BOUNDARY', 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/mixed; boundary=BOUNDARY', `multipart/form-data; boundary=${'B'.repeat(200)}`]) {
          const res = await Promise.race([t.caller.req('POST', path, Buffer.from(body, 'latin1'), { 'content-type': ct }), new Promise<undefined>((r) => setTimeout(() => r(undefined), 10_000))]);
          if (!res) stuck.push(`${path} ${name} ${ct}`);
          else expect(res.statusCode, `${path} ${name} ${ct} ${res.body}`).toBeLessThan(500);
        }
      }
    }
    expect(stuck).toEqual([]);
  }, 120_000);
});
