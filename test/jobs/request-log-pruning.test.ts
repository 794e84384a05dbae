import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { Worker } from '../../src/jobs/worker.js';
import type { RequestLogRow } from '../../src/store/tables/request-logs.js';
import { describeEachEngine } from '../helpers/test-app.js';

const DAY = 86_400_000;

describeEachEngine(
  'pruning the request log',
  (t) => {
    const workers: Worker[] = [];
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
    });

    const row = (createdAt: number): RequestLogRow => ({
      id: randomUUID(),
      platform_id: t.caller.platformId,
      token_id: t.caller.tokenId,
      method: 'GET',
      path: '/2025-10-13/customers',
      query: null,
      status: 200,
      duration_us: 1_000,
      client_request_id: null,
      request_body: null,
      response_body: '{}',
      created_at: createdAt,
    });
    const left = async () => (await t.services.store.db.selectFrom('request_logs').select('id').orderBy('created_at').execute()).map((r) => r.id);

    it('deletes entries older than REQUEST_LOG_RETENTION_MS, in batches, and keeps the recent ones', async () => {
      await t.services.store.db.deleteFrom('request_logs').execute();
      const now = Date.now();
      const old = Array.from({ length: 1_203 }, (_, i) => row(now - 3 * DAY - i));
      const recent = [row(now - DAY), row(now - 1_000)];
      for (let i = 0; i < old.length; i += 300) await t.services.store.db.insertInto('request_logs').values(old.slice(i, i + 300)).execute();
      await t.services.store.db.insertInto('request_logs').values(recent).execute();
      const worker = new Worker(t.services, [], t.app.log, { pruneEveryMs: 3_600_000 });
      workers.push(worker);
      expect((await worker.prune()).requestLogs).toBe(1_203);
      expect(await left()).toEqual(recent.map((r) => r.id));
      expect((await worker.prune()).requestLogs).toBe(0);
    });

    it('keeps at most REQUEST_LOG_MAX_ENTRIES, dropping the oldest', async () => {
      await t.services.store.db.deleteFrom('request_logs').execute();
      const now = Date.now();
      const rows = Array.from({ length: 8 }, (_, i) => row(now - 10_000 + i));
      await t.services.store.db.insertInto('request_logs').values(rows).execute();
      const worker = new Worker(t.services, [], t.app.log, { pruneEveryMs: 3_600_000 });
      workers.push(worker);
      expect((await worker.prune()).requestLogs).toBe(3);
      expect(await left()).toEqual(rows.slice(3).map((r) => r.id));
    });
  },
  { REQUEST_LOG_RETENTION_MS: String(2 * DAY), REQUEST_LOG_MAX_ENTRIES: '5', REQUEST_LOG_ENABLED: '0' },
);
