import { IncomingTransactionSchema, OutgoingTransactionSchema } from './transfers.js';
import { Type, type TSchema } from 'typebox';
import { CARD_FUNDING_SOURCE_CHANGE_EVENT, CARD_STATE_CHANGE_EVENT } from '../domain/cards/card-lifecycle.js';
import { CARD_TRANSACTION_STATUSES, OPERATION_KINDS } from '../domain/cards/card-transactions.js';
import { BALANCE_UPDATED_EVENT } from '../domain/accounts/internal-accounts.js';
import { VERIFICATION_STATUSES } from '../domain/verifications/verifications.js';
import { TEST_EVENT_TYPE } from '../domain/webhooks/webhook-event-log.js';
import { extension } from './common.js';
import { CardSchema } from './cards.js';
import { CustomerSchema } from './customers.js';
import { ExternalAccountSchema } from './external-accounts.js';
import { EXTERNAL_ACCOUNT_STATUS_UPDATED_EVENT } from '../domain/external-accounts/external-account-lifecycle.js';
import { BulkImportJobSchema } from './customers-bulk.js';
import { InternalAccountSchema } from './internal-accounts.js';
import { CardTransactionSchema } from './transactions.js';
import { VerificationSchema } from './verifications.js';
import { INVITATION_CLAIMED_EVENT } from '../domain/uma/invitations.js';
import { UmaInvitationSchema } from './invitations.js';

/** The envelope every delivered event shares: `{id, type, timestamp, data}`. */
function envelope(type: TSchema, data: TSchema, extra: Record<string, TSchema> = {}, description = '') {
  return Type.Object(
    {
      id: Type.String({ description: 'The event id, also sent as webhook-id; the same on every retry and redelivery, so a receiver can drop duplicates', examples: ['Webhook:019542f5-b3e7-7d02-8000-000000000007'] }),
      type,
      timestamp: Type.String({ format: 'date-time', description: 'When the event was created' }),
      data,
      ...extra,
    },
    { description },
  );
}

export const TestWebhookSchema = envelope(Type.Literal(TEST_EVENT_TYPE), Type.Object({}, { description: 'Empty' }), {}, 'The test event POST /sandbox/webhooks/test sends');

export const CardTransactionWebhookSchema = envelope(
  Type.Enum(
    CARD_TRANSACTION_STATUSES.map((s) => `CARD_TRANSACTION.${s}`),
    {
      ...extension('The types CARD_TRANSACTION.EXPIRED and CARD_TRANSACTION.DECLINED (a declined authorization)'),
      description: 'CARD_TRANSACTION.<status after the operation>; CARD_TRANSACTION.DECLINED when an authorization is declined (data.declineReason says why)',
    },
  ),
  CardTransactionSchema,
  {
    operation: Type.Object(
      {
        kind: Type.Enum([...OPERATION_KINDS]),
        issuerTransactionToken: Type.String({ description: 'The token the simulate call answered with' }),
        amount: Type.Integer({ description: 'What the operation moved, in minor units; for a declined authorization the amount asked for' }),
      },
      { ...extension('The property operation'), description: 'The card operation that produced the event, to match it to its simulate call' },
    ),
  },
  'A card operation landed on a card transaction',
);

export const InternalAccountWebhookSchema = envelope(
  Type.Literal(BALANCE_UPDATED_EVENT),
  InternalAccountSchema,
  {},
  "An internal account's balance changed (a funding, or a card operation that held, released, debited or credited it); data is the account after the change",
);

export const CardStateChangeWebhookSchema = envelope(
  Type.Literal(CARD_STATE_CHANGE_EVENT),
  CardSchema,
  {},
  "A card's state changed: PROCESSING -> ACTIVE once a sandbox card is issued, and every change made with PATCH /cards/{id}; data is the card after the change",
);

export const CardFundingSourceChangeWebhookSchema = envelope(
  Type.Literal(CARD_FUNDING_SOURCE_CHANGE_EVENT),
  CardSchema,
  {},
  "PATCH /cards/{id} replaced a card's funding sources; data is the card after the change",
);

export const CustomerWebhookSchema = envelope(
  Type.Enum(['CUSTOMER.KYC_APPROVED', 'CUSTOMER.KYC_REJECTED', 'CUSTOMER.KYC_PENDING', 'CUSTOMER.KYB_APPROVED', 'CUSTOMER.KYB_REJECTED', 'CUSTOMER.KYB_PENDING'], {
    description: 'CUSTOMER.KYC_<status> for an INDIVIDUAL customer, CUSTOMER.KYB_<status> for a BUSINESS one',
  }),
  CustomerSchema,
  {},
  "A customer's KYC/KYB status was set: at the creation of a sandbox individual (by its fullName), by POST /verifications, or by POST /sandbox/customers/{customerId}/kyc; data is the customer after the change",
);

export const VerificationWebhookSchema = envelope(
  Type.Enum(
    VERIFICATION_STATUSES.filter((s) => s !== 'READY_FOR_VERIFICATION').map((s) => `VERIFICATION.${s}`),
    { description: 'VERIFICATION.<verificationStatus> of the verification' },
  ),
  VerificationSchema,
  {},
  'POST /verifications recorded a verification; data is the verification',
);

export const ExternalAccountStatusWebhookSchema = envelope(
  Type.Literal(EXTERNAL_ACCOUNT_STATUS_UPDATED_EVENT),
  ExternalAccountSchema,
  {},
  "An external account's status changed: a sandbox PENDING name verification ended, or an ownership challenge started, failed or completed; data is the account after the change",
);

export const BulkUploadWebhookSchema = envelope(
  Type.Enum(['BULK_UPLOAD.COMPLETED', 'BULK_UPLOAD.FAILED']),
  BulkImportJobSchema,
  {},
  'A bulk customer import ended; data is the import job as GET /customers/bulk/jobs/{jobId} answers it then',
);

export const InvitationClaimedWebhookSchema = envelope(
  Type.Literal(INVITATION_CLAIMED_EVENT),
  UmaInvitationSchema,
  {},
  'An UMA invitation of the platform was claimed; data is the invitation after the claim',
);

export const IncomingPaymentWebhookSchema = envelope(
  Type.Enum(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED', 'INCOMING_PAYMENT.FAILED']),
  IncomingTransactionSchema,
  {},
  'A transfer-in was created (PENDING, or FAILED at once) or ended (COMPLETED, FAILED); data is the transaction then. Informational: a transfer-in never waits for the platform\'s approval',
);

export const OutgoingPaymentWebhookSchema = envelope(
  Type.Enum(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED', 'OUTGOING_PAYMENT.REFUND_FAILED']),
  OutgoingTransactionSchema,
  {},
  'A transfer-out was created (PENDING, or FAILED at once) or ended (COMPLETED, FAILED); a FAILED one that held its amount is followed by REFUND_COMPLETED with the refund settled (REFUND_FAILED when a quote payment\'s payout and refund both failed); data is the transaction then',
);
