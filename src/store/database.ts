import type { BulkImportTables } from './tables/bulk-imports.js';
import type { DocumentTables } from './tables/documents.js';
import type { BeneficialOwnerTables } from './tables/beneficial-owners.js';
import type { CardRevealTables } from './tables/card-reveals.js';
import type { OnboardingLinkTables } from './tables/onboarding-links.js';
import type { PaymentTransactionTables } from './tables/payment-transactions.js';
import type { CardTables } from './tables/cards.js';
import type { CustomerTables } from './tables/customers.js';
import type { ExternalAccountTables } from './tables/external-accounts.js';
import type { FormSubmissionTables } from './tables/form-submissions.js';
import type { FoundationTables } from './tables/foundation.js';
import type { IdempotencyKeyTables } from './tables/idempotency-keys.js';
import type { InternalAccountTables } from './tables/internal-accounts.js';
import type { JobTables } from './tables/jobs.js';
import type { VerificationTables } from './tables/verifications.js';
import type { QuoteTables } from './tables/quotes.js';
import type { RequestLogTables } from './tables/request-logs.js';
import type { WebhookEventRow, WebhookEventTables } from './tables/webhook-events.js';
import type { WebhookEventDeliveryColumns, WebhookTables } from './tables/webhooks.js';

/** Every table the service knows, as Kysely sees it; each table group declares its own file. */
export interface Database
  extends FoundationTables, CustomerTables, BeneficialOwnerTables, CardTables, CardRevealTables, JobTables, WebhookEventTables, WebhookTables, IdempotencyKeyTables,
    InternalAccountTables, VerificationTables, RequestLogTables, ExternalAccountTables, DocumentTables, BulkImportTables, OnboardingLinkTables,
    QuoteTables, FormSubmissionTables,
    PaymentTransactionTables {
  webhook_events: WebhookEventRow & WebhookEventDeliveryColumns;
}
