import { isValidCPF } from '@brazilian-utils/brazilian-utils';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { clabe } from 'clabe-validator';
import { composeIBAN } from 'ibantools';

/** Valid identifiers of every checked scheme, built with the schemes' own arithmetic so a suffix can be chosen. */

/** A German IBAN whose last three digits are `suffix`, its check digits computed. */
export function ibanEndingIn(suffix: string, country = 'DE'): string {
  const bban = country === 'DE' ? `3704004405320${suffix.padStart(5, '0')}` : country === 'DK' ? `00400440116${suffix.padStart(3, '0')}` : `0331234567890123${suffix}`;
  return composeIBAN({ countryCode: country, bban })!;
}

/** A CLABE (Banamex, Aguascalientes) whose last three digits are `suffix`: the account digits are searched until the check digit fits. */
export function clabeEndingIn(suffix: string): string {
  for (let n = 0; n < 10; n++) {
    const candidate = clabe.calculate(2, 10, Number(`7777777${n}${suffix.slice(0, 2)}`));
    if (candidate.endsWith(suffix)) return candidate;
  }
  throw new Error(`no CLABE ends in ${suffix}`);
}

/** A CPF whose last three digits are `suffix` (its two check digits included), found by search. */
export function cpfEndingIn(suffix: string): string {
  for (let base = 123456780; base < 123466780; base++) {
    const cpf = `${String(base).slice(0, 8)}${suffix}`;
    if (isValidCPF(cpf)) return cpf;
  }
  throw new Error(`no CPF ends in ${suffix}`);
}

export const VALID_CPF = '52998224725';
export const VALID_CNPJ = '11222333000181';

/** An EIP-55 checksummed address of these 20 bytes (hex). */
export function eip55(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString('hex');
  return `0x${[...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}

export const solanaAddress = (fill = 7) => base58.encode(new Uint8Array(32).fill(fill));
export const tronAddress = () => createBase58check(sha256).encode(Uint8Array.from([0x41, ...new Uint8Array(20).fill(9)]));
export const sparkAddress = (prefix = 'spark') => bech32m.encode(prefix, bech32m.toWords(new Uint8Array(33).fill(2)), 1023);
export const bolt11Invoice = () => bech32.encode('lnbc2500u', bech32.toWords(new Uint8Array(80).fill(5)), 8192);

/** ABA routing numbers with a valid 3-7-1 check digit. */
export const ROUTING = '021000021';
export const BAD_ROUTING = '021000022';

export const individual = (fullName = 'Maria Silva', extra: Record<string, unknown> = {}) => ({ beneficiaryType: 'INDIVIDUAL', fullName, ...extra });

export function usdAccount(accountNumber = '123456789000', extra: Record<string, unknown> = {}) {
  return { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: ROUTING, bankAccountType: 'CHECKING', beneficiary: individual('John Doe'), ...extra } };
}

export function eurAccount(iban = ibanEndingIn('000')) {
  return { currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban, beneficiary: individual('Jane Roe', { countryOfResidence: 'DE' }) } };
}

export function walletAccount(accountType = 'ETHEREUM_WALLET', address = eip55('52908400098527886e0f7030069857d2e4169ee7'), extra: Record<string, unknown> = {}) {
  return { currency: 'USDC', ownershipType: 'FIRST_PARTY', accountInfo: { accountType, address, ...extra } };
}
