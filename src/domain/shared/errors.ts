/** Typed domain failures; the HTTP layer maps each to its status and code in one place. */

export interface FieldConstraint {
  format?: string;
  pattern?: string;
  enum?: string[];
  minLength?: number;
  maxLength?: number;
}

export interface FieldError {
  field: string;
  constraint?: FieldConstraint;
  message?: string;
}

export class DomainError extends Error {}

/** An id worth looking up: what the schema takes for an id (1 to 128 characters, no control character). */
export function lookupableId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= 128 && !/[\u0000-\u001f\u007f]/.test(value);
}

/** The operation's own read found the token that authenticated the request revoked (see Principal.unconfirmed). */
export class RevokedCredentialsError extends DomainError {
  constructor(readonly tokenId: string) {
    super(`Token ${tokenId} is revoked`);
  }
}

/** Every kind of resource a lookup can miss; the HTTP layer gives each its 404 code. */
export type NotFoundResource =
  | 'Customer' | 'BeneficialOwner' | 'InternalAccount' | 'Card' | 'Transaction' | 'CardTransaction' | 'WebhookEvent' | 'Token'
  | 'Verification' | 'RequestLog' | 'ExternalAccount' | 'Document' | 'BulkImportJob' | 'Quote' | 'Invitation' | 'UmaAddress';

/** The named resource does not exist for this platform (a foreign one looks the same). */
export class NotFoundError extends DomainError {
  constructor(readonly resource: NotFoundResource, readonly id: string) {
    super(`${resource} ${id} was not found`);
  }
}

/** The write would give a second active customer of the platform the same platformCustomerId or UMA address. */
export class ConflictError extends DomainError {
  constructor(readonly clash: 'platformCustomerId' | 'umaAddress' | 'externalAccount', message: string) {
    super(message);
  }
}

/** The resource was deleted: it stays readable, but cannot be changed or deleted again. */
export class DeletedError extends DomainError {}

/** The resource exists but its current state refuses the operation. */
export class InvalidStateError extends DomainError {
  constructor(message: string, readonly currentStatus: string) {
    super(message);
  }
}

/** A payment transaction's state refuses the operation, with the document's code for it. */
export class TransactionStateError extends InvalidStateError {
  constructor(message: string, currentStatus: string, readonly code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL' | 'TRANSACTION_NOT_CANCELLABLE') {
    super(message, currentStatus);
  }
}

/** A transfer to or from an external account whose ownership is still to be verified. */
export class ExternalAccountVerificationRequiredError extends DomainError {
  constructor(readonly errors: FieldError[]) {
    super(`Invalid ${errors[0]?.field ?? 'account'}: ${errors[0]?.message ?? 'ownership must be verified first'}`);
  }
}

/** A CLOSED card refuses every change: `alreadyClosed` when the change asked was closing it again. */
export class CardClosedError extends InvalidStateError {
  constructor(message: string, readonly alreadyClosed: boolean) {
    super(message, 'CLOSED');
  }
}

/** Funding sources a card cannot use: not the cardholder's internal accounts, or not in the card's currency. */
export class IneligibleFundingSourceError extends DomainError {
  constructor(readonly errors: FieldError[]) {
    super(errors.length === 1 ? `Invalid ${errors[0]!.field}: ${errors[0]!.message ?? 'ineligible'}` : `${errors.length} funding sources are ineligible`);
  }
}

/** A card was asked for a cardholder whose KYC (or KYB) status is not APPROVED. */
export class KycNotApprovedError extends DomainError {
  constructor(readonly customerId: string, readonly status: string) {
    super(`Cardholder ${customerId} has KYC status ${status}; a card needs APPROVED`);
  }
}

/** Input that passed the schema but breaks a rule only the domain knows. */
export class ValidationError extends DomainError {
  constructor(readonly errors: FieldError[]) {
    super(errors.length === 1 ? `Invalid ${errors[0]!.field}: ${errors[0]!.message ?? 'invalid value'}` : `${errors.length} fields are invalid`);
  }
}

/** The account the request names was refused by its rail (the sandbox's 105 suffix): `errors` name its identifier. */
export class InvalidBankAccountError extends DomainError {
  constructor(readonly errors: FieldError[]) {
    super(`Invalid ${errors[0]?.field ?? 'account'}: ${errors[0]?.message ?? 'the account is not valid'}`);
  }
}

/** A platform operation that needs a webhook endpoint when none is configured. */
export class WebhookEndpointNotSetError extends DomainError {
  constructor() {
    super('No webhook endpoint is configured for this platform; set one with PATCH /config');
  }
}

/** The platform's webhook endpoint did not accept a delivery. */
export class WebhookDeliveryError extends DomainError {
  constructor(message: string, readonly details: Record<string, unknown>) {
    super(message);
  }
}

/** A request the interface defines but that this service (like the interface today) does not carry out. */
export class NotImplementedError extends DomainError {}

/** The 400 codes a payment request is refused with beyond INVALID_INPUT (the document's Error400 names them). */
export type PaymentRefusal = 'AMOUNT_OUT_OF_RANGE' | 'INVALID_UMA_ADDRESS' | 'INVALID_CURRENCY' | 'INVITATION_ALREADY_CLAIMED' | 'INVITATION_CANCELLED';

/** A well-formed request the payment rules refuse: its code, and the fields at fault. */
export class PaymentRefusedError extends DomainError {
  constructor(readonly code: PaymentRefusal, message: string, readonly errors: FieldError[] = []) {
    super(message);
  }
}
