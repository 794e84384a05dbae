import { v7 as uuidv7 } from 'uuid';

export type IdType =
  | 'Platform'
  | 'Token'
  | 'Customer'
  | 'BeneficialOwner'
  | 'Card'
  | 'CardTransaction'
  | 'CardOperation'
  | 'Webhook'
  | 'Job'
  | 'Verification'
  | 'WebhookAttempt'
  | 'InternalAccount'
  | 'LedgerEntry'
  | 'ExternalAccount'
  | 'OwnershipChallenge'
  | 'Document'
  | 'Transaction';

/**
 * A bound that every id of `type` made before the millisecond `ms` sorts below, and every id made
 * at or after it sorts above (uuid v7 starts with its time in milliseconds, in hex).
 */
export function idBoundAt(type: IdType, ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${type}:${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}

/** The sandbox guide's magic suffixes on ids (docs/cards.md): a platform meets them on purpose, never by the draw. */
const MAGIC_SUFFIX = /(?:001|002|003|005)$/;

/** `<Type>:<uuid v7>`: globally unique, sorts by creation time, never ends in a magic suffix. */
export function newId(type: IdType): string {
  let uuid = uuidv7();
  while (MAGIC_SUFFIX.test(uuid)) uuid = uuidv7();
  return `${type}:${uuid}`;
}
