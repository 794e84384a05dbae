import { bech32 } from '@scure/base';

/** A BOLT11 invoice: bech32 with an ln... prefix (lnbc, lntb, lnbcrt, ...), its checksum intact; any case, not mixed. */
export function bolt11Problem(value: string): string | undefined {
  try {
    const { prefix } = bech32.decode(value.toLowerCase() as `${string}1${string}`, 8192);
    if (value !== value.toLowerCase() && value !== value.toUpperCase()) return 'is not a BOLT11 invoice (mixed case)';
    return prefix.startsWith('ln') ? undefined : 'is not a BOLT11 invoice (its prefix does not start with ln)';
  } catch {
    return 'is not a BOLT11 invoice (bech32 with its checksum)';
  }
}

/** A BOLT12 offer: lno1 then bech32 characters (offers carry no checksum). */
export function bolt12Problem(value: string): string | undefined {
  return /^lno1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/.test(value.toLowerCase()) ? undefined : 'is not a BOLT12 offer (lno1 followed by bech32 characters)';
}

/** A lightning address: user@domain, as an email address is written. */
export function lightningAddressProblem(value: string): string | undefined {
  return /^[a-z0-9._+-]+@([a-z0-9-]+\.)+[a-z]{2,}$/i.test(value) ? undefined : 'is not a lightning address (user@domain)';
}
