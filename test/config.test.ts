import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has working defaults: SQLite under ./data, sandbox, port 8080', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8080, dataDir: './data', databaseUrl: undefined, serviceEnv: 'sandbox' });
    const days = c.webhookRetryScheduleMs.reduce((a, b) => a + b, 0) / 86_400_000;
    expect(days).toBeGreaterThan(2.5);
    expect(days).toBeLessThan(3.5);
  });

  it('names every bad variable in one message', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'eighty', SERVICE_ENV: 'staging', DATABASE_URL: 'mysql://db', WEBHOOK_RETRY_SCHEDULE: '1,,2' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    for (const name of ['PORT', 'SERVICE_ENV', 'DATABASE_URL', 'WEBHOOK_RETRY_SCHEDULE']) expect(message).toContain(name);
    expect(message).not.toContain('HOST');
  });

  it('reads PostgreSQL and production settings', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h/db', SERVICE_ENV: 'production', PORT: '0', WEBHOOK_RETRY_SCHEDULE: '0.5,2' });
    expect(c).toMatchObject({ databaseUrl: 'postgres://u@h/db', serviceEnv: 'production', port: 0, webhookRetryScheduleMs: [500, 2000] });
  });

  it('reads WEBHOOK_ALLOWED_NETWORKS as CIDRs and names it, with the other bad variables, when an entry is not one', () => {
    expect(loadConfig({}).webhookAllowedNetworks).toEqual([]);
    expect(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: ' 10.20.0.0/16, fd00::/8 ' }).webhookAllowedNetworks).toEqual(['10.20.0.0/16', 'fd00::/8']);
    let message = '';
    try {
      loadConfig({ PORT: 'eighty', WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,10.0.0.1,example.com/24' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain('PORT');
    expect(message).toMatch(/WEBHOOK_ALLOWED_NETWORKS=.*not a CIDR.*10\.0\.0\.1, example\.com\/24$/);
  });

  it('bounds shutdown by SHUTDOWN_TIMEOUT_MS, by default the request and webhook timeouts plus 5 s, naming it when bad', () => {
    expect(loadConfig({}).shutdownTimeoutMs).toBe(45_000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '60000', WEBHOOK_TIMEOUT_MS: '20000', JOB_LEASE_MS: '30000' }).shutdownTimeoutMs).toBe(85_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '20000' }).shutdownTimeoutMs).toBe(20_000);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: 'soon' })).toThrow(/SHUTDOWN_TIMEOUT_MS="soon"/);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '10' })).toThrow(/SHUTDOWN_TIMEOUT_MS="10"/);
  });

  it('turns each variable into its setting (the worker switch, the log level); an unset one takes its default', () => {
    expect(loadConfig({ WORKER_ENABLED: '0', LOG_LEVEL: 'silent' })).toMatchObject({ workerEnabled: false, logLevel: 'silent' });
    expect(loadConfig({})).toMatchObject({ workerEnabled: true, logLevel: 'info', ownerPageCacheBytes: 33_554_432, rateLimitPerToken: 0, authFailuresPerAddress: 100 });
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL="loud"/);
    expect(() => loadConfig({ WORKER_ENABLED: 'yes' })).toThrow(/WORKER_ENABLED="yes"/);
  });

  it('SQLite commits with synchronous=FULL unless SQLITE_SYNCHRONOUS=NORMAL opts out', () => {
    expect(loadConfig({}).sqliteSynchronous).toBe('FULL');
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous).toBe('NORMAL');
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'OFF' })).toThrow(/SQLITE_SYNCHRONOUS/);
  });

  it('refuses a job lease not longer than the webhook timeout plus a margin, naming both variables, when the worker runs', () => {
    let message = '';
    try {
      loadConfig({ WEBHOOK_TIMEOUT_MS: '10000', JOB_LEASE_MS: '11000' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/JOB_LEASE_MS=11000 must be greater than WEBHOOK_TIMEOUT_MS \(10000\) \+ 1000 ms/);
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '10000', JOB_LEASE_MS: '11001' }).jobLeaseMs).toBe(11001);
    expect(() => loadConfig({ JOB_LEASE_MS: '5000' })).toThrow(/JOB_LEASE_MS=5000.*WEBHOOK_TIMEOUT_MS \(10000\)/);
    // A process that runs no jobs holds no leases.
    expect(loadConfig({ JOB_LEASE_MS: '5000', WORKER_ENABLED: '0' }).jobLeaseMs).toBe(5000);
  });
});
