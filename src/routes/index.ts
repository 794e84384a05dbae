import { beneficialOwnerRoutes } from './beneficial-owners.js';
import { cardRoutes } from './cards.js';
import { customerRoutes } from './customers.js';
import { internalAccountRoutes, sandboxInternalAccountRoutes } from './internal-accounts.js';
import { sandboxCardRoutes } from './sandbox-cards.js';
import { sandboxClockRoutes } from './sandbox-clock.js';
import { sandboxCustomerRoutes } from './sandbox-customers.js';
import { tokenRoutes } from './tokens.js';
import { transactionRoutes } from './transactions.js';
import type { RouteModule } from './types.js';
import { configRoutes } from './config.js';
import { sandboxWebhookRoutes } from './sandbox-webhooks.js';
import { webhookEventRoutes } from './webhook-events.js';

/** Every resource of the versioned API, registered in this order. */
export const routeModules: RouteModule[] = [tokenRoutes, customerRoutes, beneficialOwnerRoutes, cardRoutes, transactionRoutes, configRoutes, webhookEventRoutes, internalAccountRoutes];

/**
 * The sandbox operations (every path under /sandbox/, each with config.sandboxOnly): registered,
 * and documented, only when the server is not started with SERVICE_ENV=production.
 */
export const sandboxRouteModules: RouteModule[] = [sandboxCardRoutes, sandboxWebhookRoutes, sandboxInternalAccountRoutes, sandboxCustomerRoutes, sandboxClockRoutes];
