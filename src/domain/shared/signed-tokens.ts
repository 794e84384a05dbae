import { createHmac, timingSafeEqual } from 'node:crypto';

/** A bearer token for a page: `<id>.<HMAC of purpose:id>`, so a forged one is refused before any lookup. */
export function signedToken(key: Buffer, purpose: string, id: string): string {
  return `${id}.${sign(key, `${purpose}:${id}`)}`;
}

/** The id a token carries when its signature holds, else undefined. */
export function verifiedTokenId(key: Buffer, purpose: string, token: string): string | undefined {
  const [id, signature, ...rest] = token.split('.');
  if (!id || !signature || rest.length > 0) return undefined;
  const expected = Buffer.from(sign(key, `${purpose}:${id}`));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
}

const sign = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('base64url');
