/** Keys whose values are never stored, whatever they hold (client and webhook secrets, credentials, card data, a card reveal's bearer URL). */
const SECRET_KEY = /secret|password|passphrase|private_?key|authorization|credential|^(cvv|cvc|cvv2|pin|pan)$|card_?number|embed_?url/i;
const REDACTED = '[REDACTED]';

const PATTERNS: [RegExp, string][] = [
  // A webhook signing secret, wherever it appears.
  [/whsec_[A-Za-z0-9+/=_-]*/g, 'whsec_[REDACTED]'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[REDACTED PRIVATE KEY]'],
  // PAN-like: 13 to 19 digits in a row, or in groups of four split by one space or dash (not part of a longer id).
  [/(?<![\d-])\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}(?![\d-])/g, '[REDACTED PAN]'],
  [/(?<!\d)\d{13,19}(?!\d)/g, '[REDACTED PAN]'],
];

/** A string with every secret and PAN-like run it contains replaced. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A JSON value with secret keys' values and secret or PAN-like text replaced; numbers of 13 or more digits count as PANs. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'number') return Math.abs(value) >= 1e12 ? '[REDACTED PAN]' : value;
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[redactText(key)] = SECRET_KEY.test(key) ? REDACTED : redactValue(inner);
    return out;
  }
  return value;
}

/** The text stored for a body: redacted JSON, cut at `maxChars` (after redaction, so a cut never reveals a secret). */
export function storedBody(value: unknown, maxChars: number): string | null {
  if (value === undefined) return null;
  const text = JSON.stringify(redactValue(value));
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}...[${text.length - maxChars} more characters cut]`;
}
