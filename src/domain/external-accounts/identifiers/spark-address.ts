import { bech32m } from '@scure/base';

/** Spark's network prefixes: mainnet, testnet, regtest, signet, local. */
const PREFIXES = new Set(['spark', 'sparkt', 'sparkrt', 'sparks', 'sparkl']);

/** A Spark address: bech32m with a Spark network prefix, its checksum intact. */
export function sparkAddressProblem(value: string): string | undefined {
  try {
    const { prefix } = bech32m.decode(value as `${string}1${string}`, 1023);
    return PREFIXES.has(prefix) ? undefined : 'is not a Spark address (its prefix is not spark, sparkt, sparkrt, sparks or sparkl)';
  } catch {
    return 'is not a Spark address (bech32m with its checksum)';
  }
}
