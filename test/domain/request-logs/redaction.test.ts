import { expect, it } from 'vitest';
import { redactText, redactValue, storedBody } from '../../../src/domain/request-logs/redaction.js';

it('replaces the values of secret keys, whatever they hold', () => {
  expect(redactValue({ panEmbedUrl: 'https://sandbox/reveal/abc.def', expiresAt: 'x' })).toEqual({ panEmbedUrl: '[REDACTED]', expiresAt: 'x' });
  expect(redactValue({ clientSecret: 'abc', webhookSecret: 'whsec_x', nested: [{ password: 1, privateKey: { a: 1 } }], name: 'ok' })).toEqual({
    clientSecret: '[REDACTED]',
    webhookSecret: '[REDACTED]',
    nested: [{ password: '[REDACTED]', privateKey: '[REDACTED]' }],
    name: 'ok',
  });
});

it('replaces webhook secrets, private keys and PAN-like digit runs inside any text', () => {
  expect(redactText('secret is whsec_AbC+/=9 ok')).toBe('secret is whsec_[REDACTED] ok');
  expect(redactText('-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----')).toBe('[REDACTED PRIVATE KEY]');
  for (const pan of ['4111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1111', '378282246310005', '6011000990139424123']) {
    expect(redactText(`card ${pan}.`), pan).toBe('card [REDACTED PAN].');
  }
  expect(redactValue(4111111111111111)).toBe('[REDACTED PAN]');
});

it('leaves ids, amounts and short digit runs alone', () => {
  const id = 'Customer:0194f5b3-0000-7000-8000-000000000000';
  expect(redactText(id)).toBe(id);
  expect(redactText('+14155550100 and 2025-10-13')).toBe('+14155550100 and 2025-10-13');
  expect(redactValue({ amount: 123456789, descriptor: 'BLUE BOTTLE 1234' })).toEqual({ amount: 123456789, descriptor: 'BLUE BOTTLE 1234' });
});

it('cuts a long body after redacting it, and says how much was cut', () => {
  const body = storedBody({ note: `${'x'.repeat(50)} 4111111111111111` }, 20)!;
  expect(body).toBe(`{"note":"xxxxxxxxxxx...[${JSON.stringify({ note: `${'x'.repeat(50)} [REDACTED PAN]` }).length - 20} more characters cut]`);
  expect(storedBody(undefined, 20)).toBeNull();
});
