import ipaddr from 'ipaddr.js';
import { Type, type Static, type TSchema } from 'typebox';
import Value from 'typebox/value';

export const API_VERSION = '2025-10-13';

/** One setting: its environment variable, the schema its value must meet, and the Config field made of the checked value. */
interface Setting<V, T> {
  env: string;
  schema: TSchema;
  /** Throws a ConfigError with the message (not the name) for a value the schema cannot judge. */
  parse: (value: V) => T;
}

function env<S extends TSchema>(name: string, schema: S): Setting<Static<S>, Static<S>>;
function env<S extends TSchema, T>(name: string, schema: S, parse: (value: Static<S>) => T): Setting<Static<S>, T>;
function env(name: string, schema: TSchema, parse = (value: unknown): unknown => value): Setting<unknown, unknown> {
  return { env: name, schema, parse };
}

/** A setting without a default: the field is undefined when the variable is unset (or empty). */
function optionalEnv<S extends TSchema>(name: string, schema: S): Setting<Static<S> | undefined, Static<S> | undefined> {
  return { env: name, schema: Type.Optional(schema), parse: (value) => value };
}

/** Every setting, once: the Config type and the environment's schema are both made from this table. */
const SETTINGS = {
  host: env('HOST', Type.String({ default: '127.0.0.1', minLength: 1 })),
  port: env('PORT', Type.Integer({ default: 8080, minimum: 0, maximum: 65535 })),
  dataDir: env('DATA_DIR', Type.String({ default: './data', minLength: 1 })),
  databaseUrl: optionalEnv('DATABASE_URL', Type.String({ pattern: '^postgres(ql)?://' })),
  // FULL: a commit (so a 202) survives a power loss; NORMAL survives a process crash only, for faster commits.
  sqliteSynchronous: env('SQLITE_SYNCHRONOUS', Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')], { default: 'FULL' })),
  serviceEnv: env('SERVICE_ENV', Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { default: 'sandbox' })),
  logLevel: env('LOG_LEVEL', Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' })),
  // Comma-separated delays in seconds before each retry of a webhook delivery.
  webhookRetryScheduleMs: env(
    'WEBHOOK_RETRY_SCHEDULE',
    Type.String({ default: '5,30,120,600,1800,3600,7200,14400,28800,43200,86400,86400', pattern: '^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$' }),
    (s) => s.split(',').map((delay) => Math.round(Number(delay) * 1000)),
  ),
  webhookTimeoutMs: env('WEBHOOK_TIMEOUT_MS', Type.Integer({ default: 10_000, minimum: 1 })),
  // Comma-separated CIDRs webhooks may reach even from a server exposed to other machines.
  webhookAllowedNetworks: env('WEBHOOK_ALLOWED_NETWORKS', Type.String({ default: '' }), cidrs),
  // Webhook deliveries one process has in flight at once (they wait on the network).
  webhookConcurrency: env('WEBHOOK_CONCURRENCY', Type.Integer({ default: 64, minimum: 1, maximum: 1000 })),
  // How long a worker owns a claimed job before another process may take it over.
  jobLeaseMs: env('JOB_LEASE_MS', Type.Integer({ default: 30_000, minimum: 100 })),
  jobPollMs: env('JOB_POLL_MS', Type.Integer({ default: 250, minimum: 1 })),
  // On PostgreSQL, while wake-ups from other processes arrive (LISTEN/NOTIFY): the slowest poll.
  jobSafetyPollMs: env('JOB_SAFETY_POLL_MS', Type.Integer({ default: 5_000, minimum: 1 })),
  jobConcurrency: env('JOB_CONCURRENCY', Type.Integer({ default: 128, minimum: 1, maximum: 1000 })),
  // Finished jobs (done or failed) are deleted this long after they finished (7 days).
  jobRetentionMs: env('JOB_RETENTION_MS', Type.Integer({ default: 604_800_000, minimum: 1_000 })),
  // Webhook attempts older than this are deleted; 0 keeps them as long as their events (for ever).
  webhookAttemptRetentionMs: env('WEBHOOK_ATTEMPT_RETENTION_MS', Type.Integer({ default: 0, minimum: 0 })),
  // 0 turns the request log off (GET /request-logs then lists nothing new).
  requestLogEnabled: env('REQUEST_LOG_ENABLED', Type.Union([Type.Literal('1'), Type.Literal('0')], { default: '1' }), (v) => v === '1'),
  // Request log entries older than this are deleted (7 days).
  requestLogRetentionMs: env('REQUEST_LOG_RETENTION_MS', Type.Integer({ default: 604_800_000, minimum: 1_000 })),
  // At most this many request log entries are kept, all platforms together; the oldest go first.
  requestLogMaxEntries: env('REQUEST_LOG_MAX_ENTRIES', Type.Integer({ default: 100_000, minimum: 1 })),
  // Characters of each stored request and response body; longer ones are cut.
  requestLogBodyChars: env('REQUEST_LOG_BODY_CHARS', Type.Integer({ default: 16_384, minimum: 0, maximum: 1_048_576 })),
  // How long a sandbox external account's PENDING name verification, or a LIVENESS ownership challenge, takes to complete.
  sandboxExternalAccountReviewDelayMs: env('SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS', Type.Integer({ default: 1_000, minimum: 0, maximum: 86_400_000 })),
  // Set to 0 to run an API-only process; jobs are then left to other processes.
  workerEnabled: env('WORKER_ENABLED', Type.Union([Type.Literal('1'), Type.Literal('0')], { default: '1' }), (v) => v === '1'),
  // Server processes sharing the port (node:cluster); more use more cores.
  httpProcesses: env('HTTP_PROCESSES', Type.Integer({ default: 1, minimum: 1, maximum: 64 })),
  // The whole request (headers and body) must arrive within this; a slow body is cut off.
  requestTimeoutMs: env('REQUEST_TIMEOUT_MS', Type.Integer({ default: 30_000, minimum: 100 })),
  // The request's headers must arrive within this (at most REQUEST_TIMEOUT_MS).
  headersTimeoutMs: env('HEADERS_TIMEOUT_MS', Type.Integer({ default: 10_000, minimum: 100 })),
  // An idle keep-alive connection is closed after this (above the usual 60 s idle timeout of load balancers).
  keepAliveTimeoutMs: env('KEEP_ALIVE_TIMEOUT_MS', Type.Integer({ default: 72_000, minimum: 100 })),
  // Open connections one process accepts; more are closed at once.
  maxConnections: env('MAX_CONNECTIONS', Type.Integer({ default: 10_000, minimum: 1 })),
  // After SIGTERM/SIGINT, how long a process may drain before it exits anyway; unset, see Config.
  shutdownTimeoutMs: optionalEnv('SHUTDOWN_TIMEOUT_MS', Type.Integer({ minimum: 100 })),
  // Failed authentications allowed per client id, and per client address, within the window; then 429.
  authFailuresPerClient: env('AUTH_FAILURES_PER_CLIENT', Type.Integer({ default: 10, minimum: 1 })),
  authFailuresPerAddress: env('AUTH_FAILURES_PER_ADDRESS', Type.Integer({ default: 100, minimum: 1 })),
  authFailureWindowMs: env('AUTH_FAILURE_WINDOW_MS', Type.Integer({ default: 60_000, minimum: 100 })),
  // Requests one token may send per window (per process); 0, the default, turns the limit off.
  rateLimitPerToken: env('RATE_LIMIT_PER_TOKEN', Type.Integer({ default: 0, minimum: 0 })),
  rateLimitWindowMs: env('RATE_LIMIT_WINDOW_MS', Type.Integer({ default: 60_000, minimum: 1_000 })),
  // Sandbox: how long the pull of an authorization whose descriptor ends in 005 stays pending (Grid: about 30 s).
  // Sandbox: how long after it was authorized (on the platform's clock) a fully open authorization expires by itself; a platform may set its own.
  sandboxAuthorizationTtlMs: env('SANDBOX_AUTHORIZATION_TTL_MS', Type.Integer({ default: 604_800_000, minimum: 60_000, maximum: 63_072_000_000 })),
  sandboxDelayedPullMs: env('SANDBOX_DELAYED_PULL_MS', Type.Integer({ default: 30_000, minimum: 0 })),
  // Sandbox: how long a card whose issuance suffix is 005 stays PROCESSING before it is activated (Grid: about 30 s).
  sandboxDelayedActivationMs: env('SANDBOX_DELAYED_ACTIVATION_MS', Type.Integer({ default: 30_000, minimum: 0 })),
  // Sandbox: how long a card reveal URL works (Grid: within minutes); it works once.
  cardRevealTtlMs: env('CARD_REVEAL_TTL_MS', Type.Integer({ default: 300_000, minimum: 100, maximum: 3_600_000 })),
  contactCodeTtlMs: env('CONTACT_CODE_TTL_MS', Type.Integer({ default: 600_000, minimum: 100, maximum: 86_400_000 })),
  kycLinkTtlMs: env('KYC_LINK_TTL_MS', Type.Integer({ default: 86_400_000, minimum: 100, maximum: 2_592_000_000 })),
  // Bytes of owner pages one process keeps to answer again after a version check; 0 keeps none.
  ownerPageCacheBytes: env('OWNER_PAGE_CACHE_BYTES', Type.Integer({ default: 33_554_432, minimum: 0, maximum: 4_294_967_296 })),
  // The largest document file POST and PUT /documents accept (the interface: 10 MB); larger is a 413.
  documentMaxBytes: env('DOCUMENT_MAX_BYTES', Type.Integer({ default: 10_485_760, minimum: 1, maximum: 104_857_600 })),
  // The largest CSV POST /customers/bulk/csv accepts; it is read as a stream, never held whole.
  bulkImportMaxBytes: env('BULK_IMPORT_MAX_BYTES', Type.Integer({ default: 104_857_600, minimum: 1, maximum: 1_073_741_824 })),
  // Rows of a bulk import committed together, with the job's progress, by one run of its job.
  bulkImportBatchRows: env('BULK_IMPORT_BATCH_ROWS', Type.Integer({ default: 500, minimum: 1, maximum: 10_000 })),
};

function cidrs(list: string): string[] {
  const networks = list.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const notCidrs = networks.filter((cidr) => !ipaddr.isValidCIDR(cidr));
  if (notCidrs.length > 0) throw new ConfigError(`not a CIDR such as 10.0.0.0/8 or fd00::/8: ${notCidrs.join(', ')}`);
  return networks;
}

type Settings = typeof SETTINGS;
type ParsedSettings = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/**
 * Every setting as the process uses it. SHUTDOWN_TIMEOUT_MS, when unset, is REQUEST_TIMEOUT_MS +
 * WEBHOOK_TIMEOUT_MS + 5 s: a request in flight may take the first to arrive and the second to send
 * the test webhook, and a running delivery takes at most the second.
 */
export type Config = Omit<ParsedSettings, 'shutdownTimeoutMs'> & { shutdownTimeoutMs: number };

/** What the drain may take beyond the timeouts: the last commits and closing the database. */
const SHUTDOWN_MARGIN_MS = 5_000;

/** The environment's variables, each with its schema. */
export const ConfigSchema = Type.Object(Object.fromEntries(Object.values(SETTINGS).map((s) => [s.env, s.schema])));

export class ConfigError extends Error {}

/**
 * A claimed job's lease must outlast one webhook delivery attempt and the commit after it, or
 * another process takes the job over while it is still being delivered and delivers it again.
 * Leases are not renewed while a job runs, so the worker refuses to start without this margin.
 */
export const JOB_LEASE_MARGIN_MS = 1_000;

/** Reads and validates every setting once; throws a ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw)) as Record<string, unknown>;
  const problems = new Map<string, string>();
  // The first problem of each variable, with the value it was given.
  const problem = (name: string, message: string) => {
    if (!problems.has(name)) problems.set(name, `${name}=${JSON.stringify(env[name] ?? '')}: ${message}`);
  };
  for (const e of Value.Check(ConfigSchema, converted) ? [] : Value.Errors(ConfigSchema, converted)) problem(e.instancePath.replace(/^\//, ''), e.message);
  const parsed: Record<string, unknown> = {};
  for (const [field, setting] of Object.entries(SETTINGS) as [string, Setting<unknown, unknown>][]) {
    if (problems.has(setting.env)) continue;
    try {
      parsed[field] = setting.parse(converted[setting.env]);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problem(setting.env, err.message);
    }
  }
  if (problems.size > 0) throw new ConfigError(`Invalid configuration: ${[...problems.values()].join('; ')}`);
  const c = parsed as ParsedSettings;
  if (c.headersTimeoutMs > c.requestTimeoutMs) problem('HEADERS_TIMEOUT_MS', 'must not exceed REQUEST_TIMEOUT_MS');
  if (c.workerEnabled && c.jobLeaseMs <= c.webhookTimeoutMs + JOB_LEASE_MARGIN_MS) {
    problems.set('JOB_LEASE_MS', `JOB_LEASE_MS=${c.jobLeaseMs} must be greater than WEBHOOK_TIMEOUT_MS (${c.webhookTimeoutMs}) + ${JOB_LEASE_MARGIN_MS} ms, as leases are not renewed while a delivery runs: raise JOB_LEASE_MS or lower WEBHOOK_TIMEOUT_MS (or set WORKER_ENABLED=0 for a process that runs no jobs)`);
  }
  if (problems.size > 0) throw new ConfigError(`Invalid configuration: ${[...problems.values()].join('; ')}`);
  return { ...c, shutdownTimeoutMs: c.shutdownTimeoutMs ?? c.requestTimeoutMs + c.webhookTimeoutMs + SHUTDOWN_MARGIN_MS };
}
