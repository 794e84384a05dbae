import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';

describe('error catalogue', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const spec = Object.entries(ERROR_CATALOGUE).flatMap(([status, codes]) => Object.keys(codes).map((code) => [Number(status), code] as const));

  it('holds every code of the interface, each under its status', () => {
    const codes = new Map(spec.map(([s, c]) => [c, s]));
    for (const c of ['INVALID_INPUT', 'CARDHOLDER_KYC_NOT_APPROVED', 'TRANSACTION_SIZE_LIMIT_EXCEEDED', 'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED', 'END_USER_TERMS_VERSION_NOT_FOUND'])
      expect(codes.get(c)).toBe(400);
    for (const c of ['UNAUTHORIZED', 'INVALID_SIGNATURE', 'WALLET_SIGNATURE_MISSING', 'WALLET_SIGNATURE_MALFORMED', 'WALLET_SIGNATURE_BODY_MISMATCH', 'WALLET_SIGNATURE_INVALID', 'REQUEST_ID_MISSING'])
      expect(codes.get(c)).toBe(401);
    expect(codes.get('SERVICE_SWITCH_ERROR')).toBe(500);
    expect(codes.get('INTERNAL_ERROR')).toBe(500);
    expect(spec.filter(([s]) => s === 400)).toHaveLength(43);
  });

  it('is documented in the README error table, code by code', () => {
    for (const [status, code] of spec) expect(readme, code).toMatch(new RegExp(`\\| ${status} \\| \`${code}\` \\|`));
  });
});
