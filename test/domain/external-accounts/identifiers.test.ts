import fc from 'fast-check';
import { composeIBAN } from 'ibantools';
import { describe, expect, it } from 'vitest';
import { abaRoutingProblem } from '../../../src/domain/external-accounts/identifiers/aba-routing.js';
import { identifierErrors } from '../../../src/domain/external-accounts/identifiers/account-identifiers.js';
import { brazilTaxIdProblem } from '../../../src/domain/external-accounts/identifiers/brazil-tax-id.js';
import { clabeProblem } from '../../../src/domain/external-accounts/identifiers/clabe.js';
import { evmAddressProblem } from '../../../src/domain/external-accounts/identifiers/evm-address.js';
import { ibanProblem } from '../../../src/domain/external-accounts/identifiers/iban.js';
import { bolt11Problem, bolt12Problem, lightningAddressProblem } from '../../../src/domain/external-accounts/identifiers/lightning.js';
import { pixKeyProblem } from '../../../src/domain/external-accounts/identifiers/pix-key.js';
import { solanaAddressProblem } from '../../../src/domain/external-accounts/identifiers/solana-address.js';
import { sparkAddressProblem } from '../../../src/domain/external-accounts/identifiers/spark-address.js';
import { tronAddressProblem } from '../../../src/domain/external-accounts/identifiers/tron-address.js';
import { bolt11Invoice, clabeEndingIn, cpfEndingIn, eip55, ibanEndingIn, solanaAddress, sparkAddress, tronAddress, VALID_CNPJ, VALID_CPF } from '../../helpers/external-accounts.js';

/** The same text with one character changed to another of its kind (a digit for a digit, a letter for a letter). */
const alterAt = (s: string, i: number) => s.slice(0, i) + (/[0-9]/.test(s[i]!) ? String((Number(s[i]) + 1) % 10) : s[i] === 'q' ? 'p' : 'q') + s.slice(i + 1);

describe('IBAN (mod 97)', () => {
  it('accepts IBANs of several countries with their check digits, and the paper format with spaces', () => {
    for (const iban of ['DE89370400440532013000', 'GB82WEST12345698765432', ibanEndingIn('105', 'DK'), ibanEndingIn('321', 'AE'), 'EG380019000500000000263180002', 'PK36SCBL0000001123456702', 'DE89 3704 0044 0532 0130 00']) {
      expect(ibanProblem(iban), iban).toBeUndefined();
    }
  });
  it('refuses any single changed digit of a valid IBAN (mod 97 catches every one)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 21 }), (i) => {
        expect(ibanProblem(alterAt('DE89370400440532013000', i))).toMatch(/IBAN/);
      }),
    );
  });
  it('accepts every composed German IBAN (check digits computed for any account)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }), (digits) => {
        expect(ibanProblem(composeIBAN({ countryCode: 'DE', bban: digits.join('') })!)).toBeUndefined();
      }),
    );
  });
});

describe('ABA routing number (3-7-1 checksum)', () => {
  it('accepts real routing numbers and refuses one digit off', () => {
    for (const r of ['021000021', '011000015', '122105155']) expect(abaRoutingProblem(r), r).toBeUndefined();
    for (let i = 0; i < 9; i++) expect(abaRoutingProblem(alterAt('021000021', i))).toMatch(/check digit/);
  });
});

describe('CLABE (check digit)', () => {
  it('accepts a computed CLABE and refuses a wrong check digit or an unknown bank', () => {
    expect(clabeProblem('002010077777777771')).toBeUndefined();
    expect(clabeProblem(clabeEndingIn('105'))).toBeUndefined();
    expect(clabeProblem('002010077777777772')).toMatch(/CLABE/);
    expect(clabeProblem('999010077777777771')).toMatch(/CLABE/);
  });
});

describe('CPF and CNPJ (check digits), and PIX keys by type', () => {
  it('accepts valid ones and refuses a changed check digit', () => {
    expect(brazilTaxIdProblem(VALID_CPF)).toBeUndefined();
    expect(brazilTaxIdProblem(cpfEndingIn('103'))).toBeUndefined();
    expect(brazilTaxIdProblem(VALID_CNPJ)).toBeUndefined();
    expect(brazilTaxIdProblem(alterAt(VALID_CPF, 10))).toMatch(/CPF/);
    expect(brazilTaxIdProblem(alterAt(VALID_CNPJ, 13))).toMatch(/CNPJ/);
    expect(brazilTaxIdProblem('123456789012')).toMatch(/CPF .* or a CNPJ/);
  });
  it('checks a PIX key against its declared type', () => {
    expect(pixKeyProblem(VALID_CPF, 'CPF')).toBeUndefined();
    expect(pixKeyProblem(VALID_CPF, 'CNPJ')).toMatch(/CNPJ/);
    expect(pixKeyProblem('maria@example.com.br', 'EMAIL')).toBeUndefined();
    expect(pixKeyProblem('maria', 'EMAIL')).toMatch(/email/);
    expect(pixKeyProblem('+5511987654321', 'PHONE')).toBeUndefined();
    expect(pixKeyProblem('+14155550123', 'PHONE')).toMatch(/Brazilian/);
    expect(pixKeyProblem('123e4567-e89b-12d3-a456-426614174000', 'RANDOM')).toBeUndefined();
    expect(pixKeyProblem('not-a-uuid', 'RANDOM')).toMatch(/UUID/);
  });
});

describe('crypto addresses', () => {
  it('EVM: accepts lower, upper and EIP-55 mixed case; refuses a mixed case that breaks the checksum', () => {
    const checksummed = eip55('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
    expect(checksummed).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(evmAddressProblem(checksummed)).toBeUndefined();
    expect(evmAddressProblem(checksummed.toLowerCase())).toBeUndefined();
    expect(evmAddressProblem(`0x${checksummed.slice(2).toUpperCase()}`)).toBeUndefined();
    expect(evmAddressProblem('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toMatch(/EIP-55/);
    expect(evmAddressProblem('0x1234')).toMatch(/40 hex/);
  });
  it('EVM: every random address checksummed passes, and flipping the case of one letter fails', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{40}$/), (hex) => {
        const address = eip55(hex);
        expect(evmAddressProblem(address)).toBeUndefined();
        const letter = [...address].findIndex((c, i) => i > 1 && /[a-fA-F]/.test(c));
        const mixed = address.slice(2) !== address.slice(2).toLowerCase() && address.slice(2) !== address.slice(2).toUpperCase();
        if (letter < 0 || !mixed) return;
        const c = address[letter]!;
        const flipped = address.slice(0, letter) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(letter + 1);
        if (flipped.slice(2) === flipped.slice(2).toLowerCase() || flipped.slice(2) === flipped.slice(2).toUpperCase()) return;
        expect(evmAddressProblem(flipped)).toMatch(/EIP-55/);
      }),
    );
  });
  it('Solana: base58 of 32 bytes', () => {
    expect(solanaAddressProblem(solanaAddress())).toBeUndefined();
    expect(solanaAddressProblem('11111111111111111111111111111111')).toBeUndefined();
    expect(solanaAddressProblem('0OIl')).toMatch(/Solana/);
    expect(solanaAddressProblem('3mJr7AoUXx2Wqd')).toMatch(/Solana/);
  });
  it('Tron: base58check, and a changed character breaks the checksum', () => {
    const address = tronAddress();
    expect(address.startsWith('T')).toBe(true);
    expect(tronAddressProblem(address)).toBeUndefined();
    expect(tronAddressProblem(address.slice(0, -1) + (address.endsWith('a') ? 'b' : 'a'))).toMatch(/Tron/);
  });
  it('Spark: bech32m with a spark prefix; a changed character or another prefix fails', () => {
    expect(sparkAddressProblem(sparkAddress())).toBeUndefined();
    expect(sparkAddressProblem(sparkAddress('sparkrt'))).toBeUndefined();
    expect(sparkAddressProblem(alterAt(sparkAddress(), 20))).toMatch(/checksum/);
    expect(sparkAddressProblem(sparkAddress('bc'))).toMatch(/prefix/);
  });
  it('Lightning: BOLT11 checksum, BOLT12 offer characters, user@domain addresses', () => {
    expect(bolt11Problem(bolt11Invoice())).toBeUndefined();
    expect(bolt11Problem(bolt11Invoice().toUpperCase())).toBeUndefined();
    expect(bolt11Problem(alterAt(bolt11Invoice(), 30))).toMatch(/checksum/);
    expect(bolt12Problem('lno1qcp4256ypq')).toBeUndefined();
    expect(bolt12Problem('lnbc1qcp4256ypq')).toMatch(/BOLT12/);
    expect(lightningAddressProblem('satoshi@wallet.example.com')).toBeUndefined();
    expect(lightningAddressProblem('satoshi')).toMatch(/user@domain/);
  });
});

describe('identifierErrors', () => {
  it('names every failing identifier of an accountInfo as accountInfo.<field>, and ignores what is not a string', () => {
    expect(identifierErrors({ accountType: 'USD_ACCOUNT', routingNumber: '021000022', intermediaryRoutingNumber: '021000021' }).map((e) => e.field)).toEqual(['accountInfo.routingNumber']);
    expect(identifierErrors({ accountType: 'BRL_ACCOUNT', taxId: '123', pixKey: 'x', pixKeyType: 'EMAIL' }).map((e) => e.field)).toEqual(['accountInfo.taxId', 'accountInfo.pixKey']);
    expect(identifierErrors({ accountType: 'EUR_ACCOUNT', iban: 42 })).toEqual([]);
    expect(identifierErrors(null)).toEqual([]);
    expect(identifierErrors({ accountType: 'NO_SUCH', iban: 'x' })).toEqual([]);
  });
});
