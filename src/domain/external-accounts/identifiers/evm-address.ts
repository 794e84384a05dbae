import { keccak_256 } from '@noble/hashes/sha3.js';

/**
 * An EVM address (Ethereum, Base, Polygon, Plasma): 0x and 40 hex digits; a mixed-case one must
 * carry its EIP-55 checksum (all lower or all upper case carries none).
 */
export function evmAddressProblem(value: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return 'is not an EVM address (0x followed by 40 hex digits)';
  const hex = value.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return undefined;
  return hex === eip55(hex) ? undefined : 'does not match its EIP-55 mixed-case checksum';
}

function eip55(hex: string): string {
  const lower = hex.toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString('hex');
  return [...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('');
}
