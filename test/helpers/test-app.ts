import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPlatformWithToken, environmentScope } from '../../src/domain/platform/platforms.js';
import { openServices, type Services } from '../../src/services.js';
import { PERMISSIONS, type CreatedApiToken, type Environment } from '../../src/domain/platform/tokens.js';
import { WebhookTargetPolicy } from '../../src/domain/webhooks/webhook-targets.js';
import { WebhookSender } from '../../src/jobs/webhook-sender.js';
import { createTestDatabase, ENGINES, type EngineName, type TestDatabase } from './engines.js';

export const BASE = '/2025-10-13';

export interface Caller {
  /** The data scope the token reaches: the platform for a sandbox token, its production scope for a production one. */
  platformId: string;
  tokenId: string;
  clientId: string;
  clientSecret: string;
  /** The Authorization header value. */
  auth: string;
  /** Sends a request to the app as this caller; `url` is relative to the versioned base. */
  req(method: InjectOptions['method'], url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface TestApp {
  engine: EngineName;
  db: TestDatabase;
  services: Services;
  app: FastifyInstance;
  /** A platform with a full-permission sandbox token, created for the file. */
  caller: Caller;
  /**
   * Creates another platform (tenant) with a full-permission token of `environment`; or, given
   * `of`, a token of `environment` for the platform `of` belongs to (its scope of that environment).
   */
  newCaller(environment?: Environment, of?: Caller): Promise<Caller>;
}

export function basicAuth(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

/**
 * Runs `body` once per engine (SQLite file, PostgreSQL database), each against a real app over a
 * fresh database. The returned object is filled in by beforeAll.
 */
export function describeEachEngine(name: string, body: (t: TestApp) => void, env: Record<string, string> = {}): void {
  for (const engine of ENGINES) {
    describe.skipIf(!engineAvailable(engine))(`${name} [${engine}]`, () => {
      const t = {} as TestApp;
      let sender: WebhookSender | undefined;
      beforeAll(async () => {
        t.engine = engine;
        t.db = await createTestDatabase(engine);
        const config = loadConfig({ ...t.db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent', ...env });
        sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, targets: WebhookTargetPolicy.forServer(config) });
        t.services = await openServices(config, sender.send);
        t.app = await buildApp(t.services);
        t.newCaller = (environment: Environment = 'sandbox', of?: Caller) => newCaller(t, environment, of);
        t.caller = await t.newCaller();
      });
      afterAll(async () => {
        await t.app?.close();
        await sender?.close();
        await t.services?.store.close();
        await t.db?.drop();
      });
      body(t);
    });
  }
}

/** SQLite always; PostgreSQL when the run's global setup found it (in CI it must). */
export function engineAvailable(engine: EngineName): boolean {
  return engine === 'sqlite' || inject('pgAvailable');
}

async function newCaller(t: TestApp, environment: Environment, of?: Caller): Promise<Caller> {
  let platformId: string;
  let token: CreatedApiToken;
  if (of) {
    platformId = (await environmentScope(t.services.store, of.platformId, environment))!;
    token = await t.services.tokens.create(platformId, { name: `Test ${environment} token`, permissions: [...PERMISSIONS], environment });
  } else {
    ({ platformId, token } = await createPlatformWithToken(t.services.store, t.services.tokens, `Test platform ${Date.now()}`, environment));
  }
  const auth = basicAuth(token.clientId, token.clientSecret);
  return {
    platformId,
    tokenId: token.id,
    clientId: token.clientId,
    clientSecret: token.clientSecret,
    auth,
    req: (method, url, body, headers = {}) =>
      t.app.inject({
        method,
        url: `${BASE}${url}`,
        headers: { authorization: auth, ...headers },
        ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
      }),
  };
}

/** An app over the suite's services whose throttle and rate limits run on a clock the test moves. */
export interface ClockedApp {
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Moves the app's clock forward: a window ends when a test says so, not after a real wait. */
  advance(ms: number): void;
}

/** Builds a ClockedApp for the suite (in beforeAll) and closes it after (in afterAll). */
export function appOnTestClock(t: TestApp): ClockedApp {
  let now = 1_700_000_000_000;
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    app = await buildApp(t.services, { now: () => now });
  });
  afterAll(async () => {
    await app?.close();
  });
  return {
    inject: (options) => app!.inject(options),
    advance: (ms) => void (now += ms),
  };
}
