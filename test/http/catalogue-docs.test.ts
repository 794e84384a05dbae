import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';

const catalogue = Object.entries(ERROR_CATALOGUE).flatMap(([status, codes]) => Object.keys(codes).map((code) => `${status} ${code}`));

/** The (status, code) rows of the README's error table, in the order written. */
function readmeErrorRows(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const header = readme.indexOf('| Status | Code | Meaning |');
  expect(header, 'the README has an error table').toBeGreaterThan(0);
  const lines = readme.slice(header).split('\n').slice(2);
  const table = lines.slice(0, lines.findIndex((l) => !l.startsWith('|')));
  return table.map((line) => {
    const cells = line.split('|').map((c) => c.trim());
    expect(cells[1], line).toMatch(/^\d{3}$/);
    expect(cells[2], line).toMatch(/^`[A-Z0-9_]+`$/);
    return `${cells[1]} ${cells[2]!.slice(1, -1)}`;
  });
}

describe('error catalogue', () => {
  it('holds every code of the interface, each under its status', () => {
    const statusOf = new Map(catalogue.map((row) => [row.split(' ')[1], Number(row.split(' ')[0])]));
    for (const c of ['INVALID_INPUT', 'CARDHOLDER_KYC_NOT_APPROVED', 'TRANSACTION_SIZE_LIMIT_EXCEEDED', 'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED', 'END_USER_TERMS_VERSION_NOT_FOUND'])
      expect(statusOf.get(c)).toBe(400);
    for (const c of ['UNAUTHORIZED', 'INVALID_SIGNATURE', 'WALLET_SIGNATURE_MISSING', 'WALLET_SIGNATURE_MALFORMED', 'WALLET_SIGNATURE_BODY_MISMATCH', 'WALLET_SIGNATURE_INVALID', 'REQUEST_ID_MISSING'])
      expect(statusOf.get(c)).toBe(401);
    expect(statusOf.get('SERVICE_SWITCH_ERROR')).toBe(500);
    expect(statusOf.get('INTERNAL_ERROR')).toBe(500);
    expect(catalogue.filter((row) => row.startsWith('400 '))).toHaveLength(44);
  });

  it('is the README error table, row for row: none missing, none extra, none twice', () => {
    const rows = readmeErrorRows();
    expect(rows.filter((row, i) => rows.indexOf(row) !== i), 'rows written twice').toEqual([]);
    expect(rows.filter((row) => !catalogue.includes(row)), 'rows not in the catalogue').toEqual([]);
    expect(catalogue.filter((row) => !rows.includes(row)), 'catalogue entries missing from the README').toEqual([]);
  });
});
