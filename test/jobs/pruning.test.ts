import { v7 as uuidv7 } from 'uuid';
import { afterEach, expect, it } from 'vitest';
import { idBoundAt, newId } from '../../src/domain/shared/ids.js';
import { Worker } from '../../src/jobs/worker.js';
import { findJob } from '../../src/store/jobs-repo.js';
import { vacuumChurningTables } from '../../src/store/retention-repo.js';
import { sql } from 'kysely';
import type { JobState } from '../../src/store/tables/jobs.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { produceEvent } from '../helpers/webhook-receiver.js';

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachEngine(
  'pruning finished jobs and old webhook attempts',
  (t) => {
    const workers: Worker[] = [];
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
    });

    async function insertJobs(rows: { id: string; state: JobState; finishedAgoMs: number }[]): Promise<void> {
      const now = Date.now();
      for (let i = 0; i < rows.length; i += 200) {
        await t.services.store.db
          .insertInto('jobs')
          .values(
            rows.slice(i, i + 200).map((r) => ({
              id: r.id,
              kind: 'test.prune',
              payload: '{}',
              queue_key: null,
              state: r.state,
              run_at: now - r.finishedAgoMs,
              attempts: 1,
              lease_owner: null,
              lease_expires_at: null,
              last_error: null,
              created_at: now - r.finishedAgoMs - 1000,
              updated_at: now - r.finishedAgoMs,
            })),
          )
          .execute();
      }
    }

    it('vacuums on PostgreSQL only the tables job runs rewrite that hold at least the given number of old row versions', async () => {
      const vacuums = async () =>
        t.engine === 'postgres' ? Number((await sql<{ n: string }>`select vacuum_count as n from pg_stat_user_tables where relname = 'jobs'`.execute(t.services.store.db)).rows[0]!.n) : 0;
      const before = await vacuums();
      // More old versions than any table holds: nothing is vacuumed.
      expect(await vacuumChurningTables(t.services.store, 1e12)).toEqual([]);
      expect(await vacuums()).toBe(before);
      const all = await vacuumChurningTables(t.services.store, 0);
      if (t.engine === 'sqlite') {
        expect(all).toEqual([]);
        return;
      }
      expect([...all].sort()).toEqual(['card_operations', 'card_transactions', 'internal_accounts', 'jobs', 'payment_transactions', 'platforms', 'webhook_events']);
      // Counted once the vacuum's statistics are in.
      const deadline = Date.now() + 5_000;
      while ((await vacuums()) === before && Date.now() < deadline) await sleep(20);
      expect(await vacuums()).toBeGreaterThan(before);
    });

    it('deletes finished jobs past JOB_RETENTION_MS in small batches, and nothing still queued or recent', async () => {
      const old = Array.from({ length: 1_234 }, () => ({ id: newId('Job'), state: 'done' as const, finishedAgoMs: 8 * DAY }));
      const oldFailed = { id: newId('Job'), state: 'failed' as const, finishedAgoMs: 30 * DAY };
      const recentDone = { id: newId('Job'), state: 'done' as const, finishedAgoMs: 6 * DAY };
      const recentFailed = { id: newId('Job'), state: 'failed' as const, finishedAgoMs: DAY };
      // A retry due long ago that no worker has taken yet is not finished: it stays.
      const oldQueued = { id: newId('Job'), state: 'queued' as const, finishedAgoMs: 30 * DAY };
      await insertJobs([...old, oldFailed, recentDone, recentFailed, oldQueued]);

      const worker = new Worker(t.services, [], t.app.log, { pruneEveryMs: 3_600_000 });
      workers.push(worker);
      expect(await worker.prune()).toEqual({ jobs: 1_235, attempts: 0, requestLogs: 0 });
      for (const j of [old[0]!, old.at(-1)!, oldFailed]) expect(await findJob(t.services.store.db, j.id)).toBeUndefined();
      for (const j of [recentDone, recentFailed, oldQueued]) expect((await findJob(t.services.store.db, j.id))?.state).toBe(j.state);
      expect(await worker.prune()).toEqual({ jobs: 0, attempts: 0, requestLogs: 0 });
    });

    it('a running worker prunes on its own, every pruneEveryMs', async () => {
      const old = { id: newId('Job'), state: 'done' as const, finishedAgoMs: 10 * DAY };
      await insertJobs([old]);
      workers.push(new Worker(t.services, [], t.app.log, { pruneEveryMs: 50 }).start());
      const deadline = Date.now() + 5_000;
      while ((await findJob(t.services.store.db, old.id)) && Date.now() < deadline) await sleep(20);
      expect(await findJob(t.services.store.db, old.id)).toBeUndefined();
    });

    it('deletes webhook attempts past WEBHOOK_ATTEMPT_RETENTION_MS; the event and its attempt count stay', async () => {
      const caller = await t.newCaller();
      const eventId = await produceEvent(t, caller);
      const now = Date.now();
      const attempt = (at: number) => ({
        id: `WebhookAttempt:${uuidv7({ msecs: at })}`,
        event_id: eventId,
        platform_id: caller.platformId,
        attempted_at: at,
        url: 'https://example.com/hook',
        response_status: 500,
        latency_ms: 3,
        error: null,
        response_excerpt: null,
      });
      const oldAttempts = [attempt(now - 40 * DAY), attempt(now - 31 * DAY)];
      const recent = attempt(now - 29 * DAY);
      await t.services.store.db.insertInto('webhook_attempts').values([...oldAttempts, recent]).execute();
      await t.services.store.db.updateTable('webhook_events').set({ attempt_count: 3 }).where('id', '=', eventId).execute();

      const worker = new Worker(t.services, [], t.app.log, { pruneEveryMs: 3_600_000 });
      workers.push(worker);
      expect((await worker.prune()).attempts).toBe(2);
      const left = await t.services.store.db.selectFrom('webhook_attempts').select('id').where('event_id', '=', eventId).execute();
      expect(left.map((a) => a.id)).toEqual([recent.id]);
      const res = await caller.req('GET', `/webhook-events/${eventId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: eventId, attemptCount: 3 });
    });

    it('an id bound sorts between the ids made before and after its millisecond', () => {
      const at = Date.now();
      const bound = idBoundAt('WebhookAttempt', at);
      expect(`WebhookAttempt:${uuidv7({ msecs: at - 1 })}` < bound).toBe(true);
      expect(`WebhookAttempt:${uuidv7({ msecs: at })}` > bound).toBe(true);
    });
  },
  { JOB_RETENTION_MS: String(7 * DAY), WEBHOOK_ATTEMPT_RETENTION_MS: String(30 * DAY), WORKER_ENABLED: '0' },
);
