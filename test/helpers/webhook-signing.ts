import { generateKeyPairSync, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A P-256 key pair as the service keeps one per platform: PKCS#8 and SPKI PEM. */
export function signingKeys(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
}

/** Checks one delivery as a receiver would: Grid's way with Node's crypto, Standard Webhooks' way with its package. */
export function verifiesBothWays(rawBody: Buffer, headers: IncomingHttpHeaders, keys: { secret: string; publicKey: string }): { grid: boolean; standard: boolean } {
  const header = (name: string) => String(headers[name] ?? '');
  const grid = verify('sha256', rawBody, keys.publicKey, Buffer.from(header('x-grid-signature'), 'base64'));
  let standard = true;
  try {
    new Webhook(keys.secret).verify(rawBody.toString('utf8'), { 'webhook-id': header('webhook-id'), 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') });
  } catch {
    standard = false;
  }
  return { grid, standard };
}
