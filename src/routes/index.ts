import { beneficialOwnerRoutes } from './beneficial-owners.js';
import { cardRoutes } from './cards.js';
import { contactVerificationRoutes } from './contact-verification.js';
import { customerRoutes } from './customers.js';
import { externalAccountRoutes } from './external-accounts.js';
import { customerBulkRoutes } from './customers-bulk.js';
import { documentRoutes } from './documents.js';
import { kycLinkRoutes } from './kyc-links.js';
import { endUserTermsRoutes } from './end-user-terms.js';
import { internalAccountRoutes, sandboxInternalAccountRoutes } from './internal-accounts.js';
import { sandboxCardRoutes } from './sandbox-cards.js';
import { sandboxClockRoutes } from './sandbox-clock.js';
import { sandboxCustomerRoutes } from './sandbox-customers.js';
import { tokenRoutes } from './tokens.js';
import { transactionRoutes } from './transactions.js';
import { transferRoutes } from './transfers.js';
import type { RouteModule } from './types.js';
import { configRoutes } from './config.js';
import { sandboxWebhookRoutes } from './sandbox-webhooks.js';
import { verificationRoutes } from './verifications.js';
import { webhookEventRoutes } from './webhook-events.js';
import { requestLogRoutes } from './request-logs.js';
import { exchangeRateRoutes, sandboxExchangeRateRoutes } from './exchange-rates.js';
import { quoteRoutes } from './quotes.js';
import { sandboxPaymentRoutes } from './sandbox-payments.js';
import { receiverRoutes } from './receivers.js';
import { invitationRoutes } from './invitations.js';
import { directoryRoutes } from './directory.js';
import { cryptoRoutes } from './crypto.js';

/** Every resource of the versioned API, registered in this order. */
export const routeModules: RouteModule[] = [
  tokenRoutes, endUserTermsRoutes, customerBulkRoutes, customerRoutes, beneficialOwnerRoutes, documentRoutes, cardRoutes, transactionRoutes, configRoutes,
  webhookEventRoutes, internalAccountRoutes, verificationRoutes, contactVerificationRoutes, kycLinkRoutes, requestLogRoutes, externalAccountRoutes,
  exchangeRateRoutes, quoteRoutes, receiverRoutes, invitationRoutes, directoryRoutes, cryptoRoutes,
  transferRoutes,
];

/**
 * The sandbox operations (every path under /sandbox/, each with config.sandboxOnly): registered,
 * and documented, only when the server is not started with SERVICE_ENV=production.
 */
export const sandboxRouteModules: RouteModule[] = [sandboxCardRoutes, sandboxWebhookRoutes, sandboxInternalAccountRoutes, sandboxCustomerRoutes, sandboxClockRoutes, sandboxExchangeRateRoutes, sandboxPaymentRoutes];
