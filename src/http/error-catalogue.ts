/**
 * The closed catalogue of error codes: every code of the interface's 400, 401 and 500 tables, and
 * for every other status the codes this service sends, each from the Grid document's enum for that
 * status (Error403, Error404, ...). Exceptions: 413 and 415, for which that document has no error
 * schema, and SERVICE_SWITCH_ERROR, the 500 table's name for what its Error500 calls GRID_SWITCH_ERROR.
 */
export const ERROR_CATALOGUE = {
  400: {
    INVALID_INPUT: 'Invalid input provided',
    END_USER_TERMS_VERSION_NOT_FOUND: 'Submitted end-user terms version unsupported',
    MISSING_MANDATORY_USER_INFO: 'Required customer information missing',
    INVITATION_ALREADY_CLAIMED: 'Invitation already claimed',
    INVITATIONS_NOT_CONFIGURED: 'Invitations not configured',
    INVALID_UMA_ADDRESS: 'UMA address format invalid',
    INVITATION_CANCELLED: 'Invitation cancelled',
    QUOTE_REQUEST_FAILED: 'Issue during the quote process; retryable',
    INVALID_PAYREQ_RESPONSE: 'Counterparty pay-request response invalid',
    INVALID_RECEIVER: 'Receiver invalid',
    PARSE_PAYREQ_RESPONSE_ERROR: "Error parsing the receiver's pay-request response",
    CERT_CHAIN_INVALID: 'Counterparty certificate chain invalid',
    CERT_CHAIN_EXPIRED: 'Counterparty certificate chain expired',
    INVALID_PUBKEY_FORMAT: 'Counterparty public key format invalid',
    MISSING_REQUIRED_UMA_PARAMETERS: "Counterparty's required UMA parameters missing",
    SENDER_NOT_ACCEPTED: 'Sender not accepted',
    AMOUNT_OUT_OF_RANGE: 'Amount out of range',
    INVALID_CURRENCY: 'Currency invalid',
    INVALID_TIMESTAMP: 'Timestamp invalid',
    INVALID_NONCE: 'Nonce invalid',
    INVALID_REQUEST_FORMAT: 'Request format invalid',
    INVALID_BANK_ACCOUNT: 'Bank account invalid',
    SELF_PAYMENT: 'Self payment not allowed',
    LOOKUP_REQUEST_FAILED: 'Lookup request failed',
    PARSE_LNURLP_RESPONSE_ERROR: 'Error parsing the LNURLP response',
    INVALID_AMOUNT: 'Amount invalid',
    WEBHOOK_ENDPOINT_NOT_SET: 'Webhook endpoint not set',
    WEBHOOK_DELIVERY_ERROR: 'Webhook delivery error',
    LOW_QUALITY: 'Document quality too low to process',
    DATA_MISMATCH: 'Document details differ from the information provided',
    EXPIRED: 'Document expired',
    SUSPECTED_FRAUD: 'Document suspected of being forged or edited',
    UNSUITABLE_DOCUMENT: 'Document type not accepted or supported',
    INCOMPLETE: 'Document missing pages or sides',
    EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS: 'An EMAIL_OTP credential is already registered on the target internal account',
    SMS_OTP_CREDENTIAL_ALREADY_EXISTS: 'An SMS_OTP credential is already registered on the target internal account',
    PASSKEY_CREDENTIAL_ALREADY_EXISTS: 'A PASSKEY credential with the same WebAuthn credentialId is already registered',
    STABLECOIN_PROVIDER_ACCOUNT_INVALID: 'Stablecoin provider account link not usable',
    STABLECOIN_PROVIDER_ACCOUNT_REVOKED: 'Stablecoin provider account link revoked',
    STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED: 'Several active provider account links exist; pass stablecoinProviderAccountId',
    CARDHOLDER_KYC_NOT_APPROVED: "Cardholder's KYC status is not APPROVED, so a card cannot be issued",
    FUNDING_SOURCE_INELIGIBLE: "A funding source is not an internal account of the cardholder, or not in the card's currency",
    TRANSACTION_SIZE_LIMIT_EXCEEDED: 'Amount exceeds the configured maximum single-transaction amount',
    EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED: 'Ownership of the destination account must be verified first',
  },
  401: {
    UNAUTHORIZED: 'Issue with API credentials',
    INVALID_SIGNATURE: 'Signature header invalid',
    WALLET_SIGNATURE_MISSING: 'The Service-Wallet-Signature header is required but was not supplied',
    WALLET_SIGNATURE_MALFORMED: 'The Service-Wallet-Signature header could not be parsed',
    WALLET_SIGNATURE_BODY_MISMATCH: 'The signature was computed over a different request body',
    WALLET_SIGNATURE_INVALID: 'The signature failed cryptographic verification',
    REQUEST_ID_MISSING: 'The Request-Id header is required on the signed retry but was not supplied',
  },
  403: { FORBIDDEN: 'The token lacks the permission this operation needs' },
  404: {
    TRANSACTION_NOT_FOUND: 'Transaction not found',
    USER_NOT_FOUND: 'Customer not found',
    TOKEN_NOT_FOUND: 'API token not found',
    BULK_UPLOAD_JOB_NOT_FOUND: 'Bulk upload job not found',
    QUOTE_NOT_FOUND: 'Quote not found',
    INVITATION_NOT_FOUND: 'Invitation not found',
    UMA_NOT_FOUND: 'No receiver at this UMA address',
    REFERENCE_NOT_FOUND: 'Reference not found: an unknown route, or an unknown resource the interface names no code for',
  },
  405: { METHOD_NOT_ALLOWED: 'The path exists but not with this method' },
  409: {
    INVALID_STATE_TRANSITION: 'The resource is not in a state that allows this operation',
    CARD_ALREADY_CLOSED: 'state CLOSED was asked for a card that is already CLOSED',
    CARD_NOT_MUTABLE: 'The card is CLOSED, so it can no longer be changed',
    UMA_ADDRESS_EXISTS: 'UMA address already exists',
    TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: 'The transaction is not an incoming payment waiting for the platform to approve or reject it',
    TRANSACTION_NOT_CANCELLABLE: 'The transaction has settled or is otherwise past the point where it can be cancelled',
    CONFLICT: 'Conflict with the current state: a platformCustomerId already used by an active customer, or a request with the same Idempotency-Key still in progress',
  },
  410: { CUSTOMER_DELETED: 'Customer has been deleted' },
  413: { PAYLOAD_TOO_LARGE: 'The request body exceeds 1 MiB, or an uploaded file exceeds its limit' },
  415: { UNSUPPORTED_MEDIA_TYPE: 'The request body must be application/json (multipart/form-data on the upload operations)' },
  429: { RATE_LIMITED: 'Too many requests; retry after the Retry-After delay' },
  500: {
    SERVICE_SWITCH_ERROR: 'Switch error inside the service',
    INTERNAL_ERROR: 'Internal server error',
  },
  501: { NOT_IMPLEMENTED: 'Feature not implemented' },
} as const;

type Catalogue = typeof ERROR_CATALOGUE;
export type ErrorStatus = keyof Catalogue;
export type CodeOf<S extends ErrorStatus> = keyof Catalogue[S];
export type ErrorCode = { [S in ErrorStatus]: CodeOf<S> }[ErrorStatus];

export const STATUS_OF_CODE = Object.fromEntries(
  Object.entries(ERROR_CATALOGUE).flatMap(([status, codes]) => Object.keys(codes).map((code) => [code, Number(status)])),
) as Record<ErrorCode, ErrorStatus>;
