import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/domain/shared/errors.js';
import { Cursors } from '../../../src/domain/shared/pagination.js';

describe('cursors', () => {
  const cursors = new Cursors(randomBytes(32));
  const pos = { createdAt: 1_795_273_953_905, id: 'BeneficialOwner:01a1feaa-91ed-728c-a69e-5ad4c312d9be' };

  it('round-trips a position within its scope', () => {
    expect(cursors.decode('s', cursors.encode('s', pos))).toEqual(pos);
  });

  it('refuses every single-character change, truncation, other scopes and other keys', () => {
    const c = cursors.encode('s', pos);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const forged: string[] = [c.slice(0, -1), c.slice(1), `${c}A`, c.slice(0, 20)];
    for (let i = 0; i < c.length; i++) {
      const other = alphabet[(alphabet.indexOf(c[i]!) + 1) % alphabet.length]!;
      forged.push(c.slice(0, i) + other + c.slice(i + 1));
    }
    for (const f of forged) expect(() => cursors.decode('s', f), f).toThrow(ValidationError);
    expect(() => cursors.decode('other scope', c)).toThrow(ValidationError);
    expect(() => new Cursors(randomBytes(32)).decode('s', c)).toThrow(ValidationError);
    expect(() => cursors.decode('s', '!!!')).toThrow(ValidationError);
  });
});
