import type { CustomerTables } from './tables/customers.js';
import type { FoundationTables } from './tables/foundation.js';
import type { JobTables } from './tables/jobs.js';
import type { WebhookEventTables } from './tables/webhook-events.js';

/** Every table the service knows, as Kysely sees it; each table group declares its own file. */
export interface Database extends FoundationTables, CustomerTables, JobTables, WebhookEventTables {}
