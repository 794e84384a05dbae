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
  | 'LedgerEntry';

/** `<Type>:<uuid v7>`: globally unique, and sorts by creation time. */
export function newId(type: IdType): string {
  return `${type}:${uuidv7()}`;
}
