import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

const base58check = createBase58check(sha256);

/** A Tron address: base58check of 21 bytes starting 0x41 (a T... address). */
export function tronAddressProblem(value: string): string | undefined {
  try {
    const bytes = base58check.decode(value);
    return bytes.length === 21 && bytes[0] === 0x41 ? undefined : 'is not a Tron address (base58check of 0x41 and 20 bytes)';
  } catch {
    return 'is not a Tron address (its base58check checksum does not match)';
  }
}
