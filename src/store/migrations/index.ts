import type { MigrationFactory } from '../migrator.js';
import { m001Foundation } from './001-foundation.js';
import { m002Customers } from './002-customers.js';
import { m003BeneficialOwners } from './003-beneficial-owners.js';
import { m004Cards } from './004-cards.js';
import { m005Webhooks } from './005-webhooks.js';
import { m006PlatformConfig } from './006-platform-config.js';
import { m007IdempotencyKeys } from './007-idempotency-keys.js';
import { m008CustomersGrid } from './008-customers-grid.js';
import { m009ListPositions } from './009-list-positions.js';
import { m010InternalAccounts } from './010-internal-accounts.js';
import { m011EnvironmentScopes } from './011-environment-scopes.js';
import { m012CardLifecycle } from './012-card-lifecycle.js';
import { m013CardDeclines } from './013-card-declines.js';
import { m014JobQueue } from './014-job-queue.js';
import { m015OwnerVersions } from './015-owner-versions.js';
import { m016CardSpendLimits } from './016-card-spend-limits.js';
import { m017CardDirections } from './017-card-directions.js';
import { m018CardReveals } from './018-card-reveals.js';
import { m019SandboxClock } from './019-sandbox-clock.js';
import { m020Verifications } from './020-verifications.js';
import { m021Documents } from './021-documents.js';
import { m022ExternalAccounts } from './022-external-accounts.js';
import { m023RequestLogs } from './023-request-logs.js';
import { m025OnboardingLinks } from './025-onboarding-links.js';
import { m026InternalAccountsCurrencies } from './026-internal-accounts-currencies.js';
import { m027PaymentTransactions } from './027-payment-transactions.js';
import { m028Quotes } from './028-quotes.js';
import { m029QuotePayments } from './029-quote-payments.js';
import { m030HoldRefusal } from './030-hold-refusal.js';
import { m031JobsFillfactor } from './031-jobs-fillfactor.js';
import { m032FormSubmissions } from './032-form-submissions.js';

/** Forward-only and numbered: a new migration gets the next number and is never edited after release. */
export const migrations: Record<string, MigrationFactory> = {
  '001_foundation': m001Foundation,
  '002_customers': m002Customers,
  '003_beneficial_owners': m003BeneficialOwners,
  '004_cards': m004Cards,
  '005_webhooks': m005Webhooks,
  '006_platform_config': m006PlatformConfig,
  '007_idempotency_keys': m007IdempotencyKeys,
  '008_customers_grid': m008CustomersGrid,
  '009_list_positions': m009ListPositions,
  '010_internal_accounts': m010InternalAccounts,
  '011_environment_scopes': m011EnvironmentScopes,
  '012_card_lifecycle': m012CardLifecycle,
  '013_card_declines': m013CardDeclines,
  '014_job_queue': m014JobQueue,
  '015_owner_versions': m015OwnerVersions,
  '016_card_spend_limits': m016CardSpendLimits,
  '017_card_directions': m017CardDirections,
  '018_card_reveals': m018CardReveals,
  '019_sandbox_clock': m019SandboxClock,
  '020_verifications': m020Verifications,
  '021_documents': m021Documents,
  '022_external_accounts': m022ExternalAccounts,
  '023_request_logs': m023RequestLogs,
  '025_onboarding_links': m025OnboardingLinks,
  '026_internal_accounts_currencies': m026InternalAccountsCurrencies,
  '027_payment_transactions': m027PaymentTransactions,
  '028_quotes': m028Quotes,
  '029_quote_payments': m029QuotePayments,
  '030_hold_refusal': m030HoldRefusal,
  '031_jobs_fillfactor': m031JobsFillfactor,
  '032_form_submissions': m032FormSubmissions,
};
