import ipaddr from 'ipaddr.js';
import { Type, type Static } from 'typebox';
import Value from 'typebox/value';

export const API_VERSION = '2025-10-13';

export const ConfigSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  PORT: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
  DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  // FULL: a commit (so a 202) survives a power loss; NORMAL survives a process crash only, for faster commits.
  SQLITE_SYNCHRONOUS: Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')], { default: 'FULL' }),
  SERVICE_ENV: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { default: 'sandbox' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  // Comma-separated delays in seconds before each retry of a webhook delivery.
  WEBHOOK_RETRY_SCHEDULE: Type.String({ default: '5,30,120,600,1800,3600,7200,14400,28800,43200,86400,86400', pattern: '^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$' }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 1 }),
  // Comma-separated CIDRs webhooks may reach even from a server exposed to other machines.
  WEBHOOK_ALLOWED_NETWORKS: Type.String({ default: '' }),
  // Webhook deliveries one process has in flight at once (they wait on the network).
  WEBHOOK_CONCURRENCY: Type.Integer({ default: 64, minimum: 1, maximum: 1000 }),
  // How long a worker owns a claimed job before another process may take it over.
  JOB_LEASE_MS: Type.Integer({ default: 30_000, minimum: 100 }),
  JOB_POLL_MS: Type.Integer({ default: 250, minimum: 1 }),
  // On PostgreSQL, while wake-ups from other processes arrive (LISTEN/NOTIFY): the slowest poll.
  JOB_SAFETY_POLL_MS: Type.Integer({ default: 5_000, minimum: 1 }),
  JOB_CONCURRENCY: Type.Integer({ default: 128, minimum: 1, maximum: 1000 }),
  // Finished jobs (done or failed) are deleted this long after they finished (7 days).
  JOB_RETENTION_MS: Type.Integer({ default: 604_800_000, minimum: 1_000 }),
  // Webhook attempts older than this are deleted; 0 keeps them as long as their events (for ever).
  WEBHOOK_ATTEMPT_RETENTION_MS: Type.Integer({ default: 0, minimum: 0 }),
  // How long after its creation a sandbox customer's KYC/KYB is approved (when the platform leaves sandboxKycAutoApproval on).
  SANDBOX_KYC_APPROVAL_DELAY_MS: Type.Integer({ default: 1_000, minimum: 0, maximum: 86_400_000 }),
  // Set to 0 to run an API-only process; jobs are then left to other processes.
  WORKER_ENABLED: Type.Union([Type.Literal('1'), Type.Literal('0')], { default: '1' }),
  // Server processes sharing the port (node:cluster); more use more cores.
  HTTP_PROCESSES: Type.Integer({ default: 1, minimum: 1, maximum: 64 }),
  // The whole request (headers and body) must arrive within this; a slow body is cut off.
  REQUEST_TIMEOUT_MS: Type.Integer({ default: 30_000, minimum: 100 }),
  // The request's headers must arrive within this (at most REQUEST_TIMEOUT_MS).
  HEADERS_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100 }),
  // An idle keep-alive connection is closed after this (above the usual 60 s idle timeout of load balancers).
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ default: 72_000, minimum: 100 }),
  // Open connections one process accepts; more are closed at once.
  MAX_CONNECTIONS: Type.Integer({ default: 10_000, minimum: 1 }),
  // Failed authentications allowed per client id, and per client address, within the window; then 429.
  AUTH_FAILURES_PER_CLIENT: Type.Integer({ default: 10, minimum: 1 }),
  AUTH_FAILURES_PER_ADDRESS: Type.Integer({ default: 100, minimum: 1 }),
  AUTH_FAILURE_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 100 }),
  // Requests one token may send per window (per process); 0, the default, turns the limit off.
  RATE_LIMIT_PER_TOKEN: Type.Integer({ default: 0, minimum: 0 }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ default: 60_000, minimum: 1_000 }),
  // Sandbox: how long the pull of an authorization whose descriptor ends in 005 stays pending (Grid: about 30 s).
  SANDBOX_DELAYED_PULL_MS: Type.Integer({ default: 30_000, minimum: 0 }),
  // Bytes of owner pages one process keeps to answer again after a version check; 0 keeps none.
  OWNER_PAGE_CACHE_BYTES: Type.Integer({ default: 33_554_432, minimum: 0, maximum: 4_294_967_296 }),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  serviceEnv: 'sandbox' | 'production';
  logLevel: string;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  webhookAllowedNetworks: string[];
  webhookConcurrency: number;
  jobLeaseMs: number;
  jobPollMs: number;
  jobSafetyPollMs: number;
  jobConcurrency: number;
  jobRetentionMs: number;
  webhookAttemptRetentionMs: number;
  workerEnabled: boolean;
  sandboxKycApprovalDelayMs: number;
  httpProcesses: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  authFailuresPerClient: number;
  authFailuresPerAddress: number;
  authFailureWindowMs: number;
  /** Requests per token per window; 0 when there is no limit. */
  rateLimitPerToken: number;
  rateLimitWindowMs: number;
  sandboxDelayedPullMs: number;
  ownerPageCacheBytes: number;
}

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
  const withDefaults = Value.Default(ConfigSchema, raw);
  const converted = Value.Convert(ConfigSchema, withDefaults);
  const problems = new Map<string, string>();
  for (const e of Value.Check(ConfigSchema, converted) ? [] : Value.Errors(ConfigSchema, converted)) {
    const name = e.instancePath.replace(/^\//, '');
    if (!problems.has(name)) problems.set(name, `${name}=${JSON.stringify(env[name] ?? '')}: ${e.message}`);
  }
  const webhookAllowedNetworks = (env.WEBHOOK_ALLOWED_NETWORKS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const notCidrs = webhookAllowedNetworks.filter((cidr) => !ipaddr.isValidCIDR(cidr));
  if (notCidrs.length > 0) problems.set('WEBHOOK_ALLOWED_NETWORKS', `WEBHOOK_ALLOWED_NETWORKS=${JSON.stringify(env.WEBHOOK_ALLOWED_NETWORKS)}: not a CIDR such as 10.0.0.0/8 or fd00::/8: ${notCidrs.join(', ')}`);
  if (problems.size === 0 && (converted as RawConfig).HEADERS_TIMEOUT_MS > (converted as RawConfig).REQUEST_TIMEOUT_MS) {
    problems.set('HEADERS_TIMEOUT_MS', `HEADERS_TIMEOUT_MS=${JSON.stringify(env.HEADERS_TIMEOUT_MS ?? '')}: must not exceed REQUEST_TIMEOUT_MS`);
  }
  const c0 = converted as RawConfig;
  if (problems.size === 0 && c0.WORKER_ENABLED === '1' && c0.JOB_LEASE_MS <= c0.WEBHOOK_TIMEOUT_MS + JOB_LEASE_MARGIN_MS) {
    problems.set('JOB_LEASE_MS', `JOB_LEASE_MS=${c0.JOB_LEASE_MS} must be greater than WEBHOOK_TIMEOUT_MS (${c0.WEBHOOK_TIMEOUT_MS}) + ${JOB_LEASE_MARGIN_MS} ms, as leases are not renewed while a delivery runs: raise JOB_LEASE_MS or lower WEBHOOK_TIMEOUT_MS (or set WORKER_ENABLED=0 for a process that runs no jobs)`);
  }
  if (problems.size > 0) throw new ConfigError(`Invalid configuration: ${[...problems.values()].join('; ')}`);
  const c = converted as RawConfig;
  return {
    host: c.HOST,
    port: c.PORT,
    dataDir: c.DATA_DIR,
    databaseUrl: c.DATABASE_URL,
    sqliteSynchronous: c.SQLITE_SYNCHRONOUS,
    serviceEnv: c.SERVICE_ENV,
    logLevel: c.LOG_LEVEL,
    webhookRetryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE.split(',').map((s) => Math.round(Number(s) * 1000)),
    webhookTimeoutMs: c.WEBHOOK_TIMEOUT_MS,
    webhookAllowedNetworks,
    webhookConcurrency: c.WEBHOOK_CONCURRENCY,
    jobLeaseMs: c.JOB_LEASE_MS,
    jobPollMs: c.JOB_POLL_MS,
    jobSafetyPollMs: c.JOB_SAFETY_POLL_MS,
    jobConcurrency: c.JOB_CONCURRENCY,
    jobRetentionMs: c.JOB_RETENTION_MS,
    webhookAttemptRetentionMs: c.WEBHOOK_ATTEMPT_RETENTION_MS,
    workerEnabled: c.WORKER_ENABLED === '1',
    sandboxKycApprovalDelayMs: c.SANDBOX_KYC_APPROVAL_DELAY_MS,
    httpProcesses: c.HTTP_PROCESSES,
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: c.HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: c.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: c.MAX_CONNECTIONS,
    authFailuresPerClient: c.AUTH_FAILURES_PER_CLIENT,
    authFailuresPerAddress: c.AUTH_FAILURES_PER_ADDRESS,
    authFailureWindowMs: c.AUTH_FAILURE_WINDOW_MS,
    rateLimitPerToken: c.RATE_LIMIT_PER_TOKEN,
    rateLimitWindowMs: c.RATE_LIMIT_WINDOW_MS,
    sandboxDelayedPullMs: c.SANDBOX_DELAYED_PULL_MS,
    ownerPageCacheBytes: c.OWNER_PAGE_CACHE_BYTES,
  };
}
