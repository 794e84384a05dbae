import { base58, bech32 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { fundingInstructionsOf } from '../../../src/domain/accounts/funding-instructions.js';

// Independent checks of each scheme's public checksum, written from the schemes' definitions.
const abaValid = (n: string) => /^\d{9}$/.test(n) && [...n].reduce((s, d, i) => s + Number(d) * [3, 7, 1][i % 3]!, 0) % 10 === 0;
const ibanValid = (iban: string) => BigInt((iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55))) % 97n === 1n;
const clabeValid = (c: string) => /^\d{18}$/.test(c) && [...c.slice(0, 17)].reduce((s, d, i) => s + ((Number(d) * [3, 7, 1][i % 3]!) % 10), 0) % 10 === (10 - Number(c[17])) % 10;
function crc16ccitt(text: string): number {
  let crc = 0xffff;
  for (const b of Buffer.from(text)) for (let i = 0, x = (crc ^= b << 8); i < 8; i++, x = crc) crc = x & 0x8000 ? ((x << 1) ^ 0x1021) & 0xffff : (x << 1) & 0xffff;
  return crc;
}

const ids = Array.from({ length: 200 }, (_, i) => `InternalAccount:0190ffff-0000-7000-8000-${String(i).padStart(12, '0')}`);
const infoOf = (id: string, currency: string) => fundingInstructionsOf(id, currency, false)[0]!.accountOrWalletInfo as Record<string, any>;

describe('sandbox funding instructions', () => {
  it('gives USD an ABA routing number whose check digit is right, on every account', () => {
    for (const id of ids) expect(abaValid(infoOf(id, 'USD').routingNumber), infoOf(id, 'USD').routingNumber).toBe(true);
  });

  it('gives EUR an IBAN that passes mod 97', () => {
    for (const id of ids) {
      const { iban } = infoOf(id, 'EUR');
      expect(iban).toMatch(/^DE\d{20}$/);
      expect(ibanValid(iban), iban).toBe(true);
    }
  });

  it('gives MXN a CLABE with a valid check digit', () => {
    for (const id of ids) expect(clabeValid(infoOf(id, 'MXN').clabeNumber), infoOf(id, 'MXN').clabeNumber).toBe(true);
  });

  it('gives BRL a PIX BR Code whose CRC16 matches', () => {
    for (const id of ids.slice(0, 20)) {
      const { qrCode } = infoOf(id, 'BRL');
      expect(qrCode).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
      expect(crc16ccitt(qrCode.slice(0, -4))).toBe(parseInt(qrCode.slice(-4), 16));
    }
  });

  it('gives BTC a bech32 segwit address and USDC a 32-byte base58 Solana address', () => {
    const btc = infoOf(ids[0]!, 'BTC');
    expect(btc).toMatchObject({ accountType: 'BITCOIN_L1', network: 'BITCOIN' });
    const decoded = bech32.decode(btc.address as `${string}1${string}`);
    expect([decoded.prefix, decoded.words[0], bech32.fromWords(decoded.words.slice(1)).length]).toEqual(['tb', 0, 20]);
    const usdc = infoOf(ids[0]!, 'USDC');
    expect(usdc).toMatchObject({ accountType: 'SOLANA_WALLET', assetType: 'USDC' });
    expect(base58.decode(usdc.address)).toHaveLength(32);
  });

  it('is the same for the same account and differs between accounts', () => {
    expect(fundingInstructionsOf(ids[0]!, 'USD', false)).toEqual(fundingInstructionsOf(ids[0]!, 'USD', false));
    expect(infoOf(ids[0]!, 'USD').accountNumber).not.toBe(infoOf(ids[1]!, 'USD').accountNumber);
  });

  it('marks platform accounts and gives nothing for a currency without a rail here', () => {
    expect(fundingInstructionsOf(ids[0]!, 'EUR', true)[0]!.isPlatformAccount).toBe(true);
    expect(fundingInstructionsOf(ids[0]!, 'XOF', false)).toEqual([]);
  });
});
