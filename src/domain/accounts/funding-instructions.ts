import { createHash } from 'node:crypto';
import { base58, bech32 } from '@scure/base';
import { composeIBAN } from 'ibantools';

/** How to pay into an internal account: the interface's PaymentInstructions. */
export interface PaymentInstructions {
  instructionsNotes?: string;
  isPlatformAccount: boolean;
  accountOrWalletInfo: { accountType: string } & Record<string, unknown>;
}

const bytesOf = (accountId: string): Buffer => createHash('sha256').update(`funding:${accountId}`).digest();
/** `n` decimal digits drawn from the bytes (deterministic, not uniform: plausibility is all it needs). */
const digitsOf = (bytes: Buffer, n: number, from = 0): string => Array.from({ length: n }, (_, i) => String(bytes[(from + i) % bytes.length]! % 10)).join('');

/** ABA routing number: Fed district 01-09 prefix, check digit by the 3-7-1 weights. */
export function abaRoutingNumber(bytes: Buffer): string {
  const first8 = `0${1 + (bytes[0]! % 9)}${digitsOf(bytes, 6, 1)}`;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...first8].reduce((s, d, i) => s + Number(d) * weights[i]!, 0);
  return first8 + String((10 - (sum % 10)) % 10);
}

/** German IBAN (8-digit bank code + 10-digit account); ibantools adds the mod 97 check digits. */
export function germanIban(bytes: Buffer): string {
  const iban = composeIBAN({ countryCode: 'DE', bban: digitsOf(bytes, 18, 8) });
  if (!iban) throw new Error('a German BBAN of 18 digits always composes');
  return iban;
}

/** CLABE: bank 646, plaza and account digits, check digit by the 3-7-1 weights mod 10. */
export function clabe(bytes: Buffer): string {
  const first17 = `646180${digitsOf(bytes, 11, 4)}`;
  const weights = [3, 7, 1];
  const sum = [...first17].reduce((s, d, i) => s + ((Number(d) * weights[i % 3]!) % 10), 0);
  return first17 + String((10 - (sum % 10)) % 10);
}

/** CRC-16/CCITT-FALSE, the checksum ending a PIX BR Code. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const emv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** A static PIX "copia e cola" payload (EMV BR Code) whose key is a random-key (EVP) uuid. */
export function pixCode(bytes: Buffer): string {
  const h = bytes.toString('hex');
  const key = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const body =
    emv('00', '01') +
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('01', key)) +
    emv('52', '0000') +
    emv('53', '986') +
    emv('58', 'BR') +
    emv('59', 'GRID SANDBOX') +
    emv('60', 'SAO PAULO') +
    emv('62', emv('05', h.slice(32, 57))) +
    '6304';
  return body + crc16(body);
}

/** Testnet P2WPKH address (bech32, 20-byte program). */
export const bitcoinAddress = (bytes: Buffer): string => bech32.encode('tb', [0, ...bech32.toWords(bytes.subarray(0, 20))]);
/** A Solana address: 32 bytes in base58. */
export const solanaAddress = (bytes: Buffer): string => base58.encode(bytes);

const reference = (bytes: Buffer) => `GRID${bytes.subarray(24, 30).toString('hex').toUpperCase()}`;
const NOTE = 'Sandbox coordinates: nothing is paid here; POST /sandbox/internal-accounts/{accountId}/fund credits the account.';

/**
 * The sandbox's funding instructions of an account in `currency`, derived from its id (the same on
 * every read); empty for a currency without a rail here.
 */
export function fundingInstructionsOf(accountId: string, currency: string, isPlatformAccount: boolean): PaymentInstructions[] {
  const b = bytesOf(accountId);
  const info = infoOf(b, currency);
  return info ? [{ instructionsNotes: NOTE, isPlatformAccount, accountOrWalletInfo: info }] : [];
}

function infoOf(b: Buffer, currency: string): PaymentInstructions['accountOrWalletInfo'] | undefined {
  switch (currency) {
    case 'USD':
      return { accountType: 'USD_ACCOUNT', accountNumber: digitsOf(b, 12, 10), routingNumber: abaRoutingNumber(b), bankName: 'Grid Sandbox Bank', paymentRails: ['ACH', 'WIRE'], reference: reference(b) };
    case 'EUR':
      return { accountType: 'EUR_ACCOUNT', iban: germanIban(b), paymentRails: ['SEPA', 'SEPA_INSTANT'], reference: reference(b) };
    case 'MXN':
      return { accountType: 'MXN_ACCOUNT', clabeNumber: clabe(b), paymentRails: ['SPEI'], reference: reference(b) };
    case 'GBP':
      return { accountType: 'GBP_ACCOUNT', sortCode: `04${digitsOf(b, 4, 2)}`, accountNumber: digitsOf(b, 8, 12), paymentRails: ['FASTER_PAYMENTS'], reference: reference(b) };
    case 'BRL':
      return { accountType: 'BRL_ACCOUNT', qrCode: pixCode(b) };
    case 'BTC':
      return { accountType: 'BITCOIN_L1', address: bitcoinAddress(b), network: 'BITCOIN' };
    case 'USDC':
    case 'USDT':
      return { accountType: 'SOLANA_WALLET', address: solanaAddress(b), assetType: currency };
    default:
      return undefined;
  }
}
