import type { TSchema } from 'typebox';
import {
  BulkUploadWebhookSchema,
  InvitationClaimedWebhookSchema,
  CardFundingSourceChangeWebhookSchema,
  CardStateChangeWebhookSchema,
  CardTransactionWebhookSchema,
  CustomerWebhookSchema,
  ExternalAccountStatusWebhookSchema,
  IncomingPaymentWebhookSchema,
  InternalAccountWebhookSchema,
  OutgoingPaymentWebhookSchema,
  TestWebhookSchema,
  VerificationWebhookSchema,
} from '../schemas/webhooks.js';

/** The security scheme a receiver checks: Grid's signature header, verified with webhookPublicKey. */
export const WEBHOOK_SIGNATURE_SCHEME = {
  type: 'apiKey',
  in: 'header',
  name: 'X-Grid-Signature',
  description:
    "Base64 of the DER-encoded ECDSA P-256 signature over SHA-256 of the raw request body, made with the platform's key; verify it with " +
    "webhookPublicKey from GET /config: `crypto.verify('sha256', rawBody, webhookPublicKey, Buffer.from(header, 'base64'))`.",
} as const;

const header = (name: string, description: string, example: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example }) as const;

/** The headers of every delivery: both signatures. */
const DELIVERY_HEADERS = [
  header('X-Grid-Signature', 'ECDSA P-256 signature of the body (see the WebhookSignature security scheme)', 'MEUCIQD3l0k...'),
  header('webhook-id', 'Standard Webhooks: the event id, the same on every retry', 'Webhook:019542f5-b3e7-7d02-8000-000000000007'),
  header('webhook-timestamp', 'Standard Webhooks: seconds since the epoch, of this attempt', '1763737200'),
  header(
    'webhook-signature',
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with webhookSecret; two, space-separated, during a secret rotation. Verify with the standardwebhooks package.',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
];

function delivery(operationId: string, summary: string, description: string, body: TSchema) {
  return {
    post: {
      operationId,
      summary,
      description: `${description} Sent to webhookEndpoint (PATCH /config).`,
      tags: ['Webhooks'],
      security: [{ WebhookSignature: [] }],
      parameters: DELIVERY_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: {
        '200': { description: 'Received. Any 2xx counts as delivered.' },
        '409': { description: 'Already received (a duplicate id): counts as delivered, not retried.' },
        default: { description: 'Anything else (or no answer within WEBHOOK_TIMEOUT_MS) is retried with backoff.' },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: what this service POSTs to a platform's endpoint. */
export const WEBHOOKS = {
  'card-transaction': delivery(
    'cardTransactionWebhook',
    'Card transaction changed',
    'One event per landed card operation, with the transaction as it is after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    CardTransactionWebhookSchema,
  ),
  'internal-account-status': delivery(
    'internalAccountStatusWebhook',
    'Internal account balance changed',
    'INTERNAL_ACCOUNT.BALANCE_UPDATED: one event per change of an account\'s balances (a funding, a landed card operation, or a transfer that held, released, debited or credited it), in the same transaction as the change, with the account after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE). INTERNAL_ACCOUNT.STATUS_UPDATED is never sent: accounts are ACTIVE from their creation and nothing here changes their status.',
    InternalAccountWebhookSchema,
  ),
  'card-state-change': delivery(
    'cardStateChangeWebhook',
    'Card state changed',
    'CARD.STATE_CHANGE: a new sandbox card became ACTIVE, or CLOSED with stateReason ISSUER_REJECTED (issuance suffix 002), or PATCH /cards/{id} froze, unfroze or closed a card; sent in the same transaction as the change, with the card after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    CardStateChangeWebhookSchema,
  ),
  'card-funding-source-change': delivery(
    'cardFundingSourceChangeWebhook',
    'Card funding sources changed',
    'CARD.FUNDING_SOURCE_CHANGE: PATCH /cards/{id} replaced the funding sources of a card; with the card after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    CardFundingSourceChangeWebhookSchema,
  ),
  'customer-update': delivery(
    'customerStatusWebhook',
    'Customer KYC/KYB status changed',
    'CUSTOMER.KYC_* (individuals) or CUSTOMER.KYB_* (businesses), in the transaction that sets the status: a new sandbox individual (its fullName decides), POST /verifications when it changes the status (PENDING on submission for review, or a decision), or POST /sandbox/customers/{customerId}/kyc with PENDING, APPROVED or REJECTED; with the customer after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    CustomerWebhookSchema,
  ),
  'verification-update': delivery(
    'verificationStatusWebhook',
    'Verification status',
    'VERIFICATION.<status>: one per POST /verifications, in its transaction, with the verification (RESOLVE_ERRORS lists what is missing). Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    VerificationWebhookSchema,
  ),
  'external-account-status': delivery(
    'externalAccountStatusWebhook',
    'External account status changed',
    'EXTERNAL_ACCOUNT.STATUS_UPDATED: a sandbox PENDING beneficiary verification ended ACTIVE, or an ownership challenge moved a wallet to PENDING_OWNERSHIP_VERIFICATION, UNVERIFIED or ACTIVE; in the same transaction as the change, with the account after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    ExternalAccountStatusWebhookSchema,
  ),
  'bulk-upload': delivery(
    'bulkUploadWebhook',
    'Bulk customer import ended',
    'BULK_UPLOAD.COMPLETED (some or all rows imported; the others in errors) or BULK_UPLOAD.FAILED (no row imported, or the CSV could not be read), in the commit that ends the import, with the job then. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    BulkUploadWebhookSchema,
  ),
  'invitation-claimed': delivery(
    'invitationClaimedWebhook',
    'Invitation claimed',
    'INVITATION.CLAIMED: POST /invitations/{invitationCode}/claim claimed a PENDING invitation; in the same transaction as the claim, with the invitation after it. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    InvitationClaimedWebhookSchema,
  ),
  'incoming-payment': delivery(
    'incomingPaymentWebhook',
    'Incoming payment (transfer-in)',
    'INCOMING_PAYMENT.<status>: a transfer-in created, or landed by the job worker, in the same transaction as the change. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    IncomingPaymentWebhookSchema,
  ),
  'outgoing-payment': delivery(
    'outgoingPaymentWebhook',
    'Outgoing payment (transfer-out)',
    'OUTGOING_PAYMENT.<status>: a transfer-out created, landed or cancelled, then OUTGOING_PAYMENT.REFUND_COMPLETED when a FAILED one gave its held amount back; in the same transaction as the change. Retried until delivered (WEBHOOK_RETRY_SCHEDULE).',
    OutgoingPaymentWebhookSchema,
  ),
  'test-webhook': delivery('testWebhook', 'Test webhook', 'Sent once by POST /sandbox/webhooks/test; not retried.', TestWebhookSchema),
};
