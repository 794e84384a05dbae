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
  | 'WebhookAttempt'
  | 'InternalAccount'
  | 'LedgerEntry'
  | 'Document';

/**
 * A bound that every id of `type` made before the millisecond `ms` sorts below, and every id made
 * at or after it sorts above (uuid v7 starts with its time in milliseconds, in hex).
 */
export function idBoundAt(type: IdType, ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${type}:${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}

/** `<Type>:<uuid v7>`: globally unique, and sorts by creation time. */
export function newId(type: IdType): string {
  return `${type}:${uuidv7()}`;
}
