import { base58 } from '@scure/base';

/** A Solana address: base58 of a 32-byte public key. */
export function solanaAddressProblem(value: string): string | undefined {
  try {
    return base58.decode(value).length === 32 ? undefined : 'is not a Solana address (base58 of 32 bytes)';
  } catch {
    return 'is not a Solana address (base58 of 32 bytes)';
  }
}
