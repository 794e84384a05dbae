import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServices, type Services } from '../../src/services.js';
import { newId } from '../../src/domain/shared/ids.js';
import { DELIVER_WEBHOOK_JOB } from '../../src/domain/webhooks/webhook-events.js';
import type { JobHandler, JobServices } from '../../src/jobs/types.js';
import type { Logger } from '../../src/logger.js';
import { Worker, type WorkerOptions } from '../../src/jobs/worker.js';
import { claimDueJobs, claimDueJobsAndNextDue, claimDueJobsByKind, enqueueJob, enqueueJobs, findJob, finishJob } from '../../src/store/jobs-repo.js';
import type { UnitOfWork } from '../../src/store/unit-of-work.js';
import { recordDeliveredJobs } from '../../src/store/webhooks-repo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { produceEvent } from '../helpers/webhook-receiver.js';
import { describeEachEngine, engineAvailable } from '../helpers/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachEngine(
  'job worker',
  (t) => {
    const workers: Worker[] = [];
    /** What the workers of a test logged, for the decisions they only log (a lease lost before commit). */
    let logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const log: Logger = {
      info: (fields, message) => void logged.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
      warn: (fields, message) => void logged.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
      error: (fields, message) => void logged.push({ level: 'error', fields: fields as Record<string, unknown>, message }),
    };
    const start = (handlers: JobHandler[], options?: WorkerOptions) => {
      const w = new Worker(t.services, handlers, log, options).start();
      workers.push(w);
      return w;
    };
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      logged = [];
    });

    async function enqueue(kind: string, payload: unknown = {}, queueKey?: string): Promise<string> {
      const id = newId('Job');
      await t.services.store.transaction((uow) => enqueueJob(uow, { id, kind, payload, queueKey: queueKey ?? null }));
      return id;
    }
    async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('timed out');
        await sleep(10);
      }
    }
    const effect = (key: string) => t.services.store.db.selectFrom('server_settings').selectAll().where('key', '=', key).executeTakeFirst();
    const writeEffect = (key: string, value: string) => async (uow: UnitOfWork) => {
      await uow.db.insertInto('server_settings').values({ key, value }).execute();
    };

    it('has the jobs table analyzed on PostgreSQL once the jobs it claimed pass 200, so that plans made while it was small are made again', async () => {
      const kind = `test.analyze.${t.engine}`;
      // ANALYZE run by a session (autovacuum's are counted apart, in autoanalyze_count).
      const analyses = async () =>
        t.engine === 'postgres' ? Number((await sql<{ n: string }>`select analyze_count as n from pg_stat_user_tables where relname = 'jobs'`.execute(t.services.store.db)).rows[0]!.n) : 0;
      const before = await analyses();
      const ids = Array.from({ length: 200 }, () => newId('Job'));
      await t.services.store.transaction((uow) => enqueueJobs(uow, ids.map((id) => ({ id, kind, payload: {} }))));
      start([{ kind, retryScheduleMs: () => [], run: async () => ({ outcome: 'done' }) }]);
      await until(async () => (await t.services.store.db.selectFrom('jobs').select('id').where('kind', '=', kind).where('state', '=', 'done').execute()).length === ids.length);
      if (t.engine === 'postgres') await until(async () => (await analyses()) > before, 5_000);
      // (This suite's 200 ms leases can run out on a slow machine; a job then runs again, which is not what this checks.)
      expect(logged.filter((l) => l.message.startsWith('analyzing'))).toEqual([]);
    });

    it('has the tables job runs rewrite vacuumed on PostgreSQL every so many runs, so that claims stop stepping over old row versions', async () => {
      const kind = `test.vacuum.${t.engine}`;
      // VACUUMs run by a session (autovacuum's are counted apart, in autovacuum_count).
      const vacuums = async () =>
        t.engine === 'postgres'
          ? Number((await sql<{ n: string }>`select vacuum_count as n from pg_stat_user_tables where relname = 'jobs'`.execute(t.services.store.db)).rows[0]!.n)
          : 0;
      const before = await vacuums();
      const ids = Array.from({ length: 20 }, () => newId('Job'));
      await t.services.store.transaction((uow) => enqueueJobs(uow, ids.map((id) => ({ id, kind, payload: {} }))));
      start([{ kind, retryScheduleMs: () => [], run: async () => ({ outcome: 'done' }) }], { vacuum: { everyRuns: 10, minDead: 0 } });
      await until(async () => (await t.services.store.db.selectFrom('jobs').select('id').where('kind', '=', kind).where('state', '=', 'done').execute()).length === ids.length);
      if (t.engine === 'postgres') await until(async () => (await vacuums()) > before, 5_000);
      expect(logged.filter((l) => l.message.startsWith('vacuuming'))).toEqual([]);
    });

    it('retries a failing job on the backoff schedule, then succeeds', async () => {
      const kind = `test.flaky.${t.engine}`;
      const runs: number[] = [];
      const id = await enqueue(kind);
      start([
        {
          kind,
          retryScheduleMs: () => [100, 100],
          async run() {
            runs.push(Date.now());
            if (runs.length < 3) throw new Error(`transient ${runs.length}`);
            return { outcome: 'done', write: writeEffect(`effect:${id}`, 'ok') };
          },
        },
      ]);
      await until(async () => (await findJob(t.services.store.db, id))?.state === 'done');
      expect(runs).toHaveLength(3);
      // Jitter is +/-20% of 100 ms.
      expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(75);
      expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(75);
      const job = await findJob(t.services.store.db, id);
      expect(job).toMatchObject({ attempts: 3, last_error: null, lease_owner: null });
      expect((await effect(`effect:${id}`))?.value).toBe('ok');
    });

    it('gives up when the schedule is spent and records the last error', async () => {
      const kind = `test.broken.${t.engine}`;
      const id = await enqueue(kind);
      start([{ kind, retryScheduleMs: () => [20], run: async () => ({ outcome: 'retry', error: 'still broken' }) }]);
      await until(async () => (await findJob(t.services.store.db, id))?.state === 'failed');
      expect(await findJob(t.services.store.db, id)).toMatchObject({ attempts: 2, last_error: 'gave up after 2 attempts: still broken' });
    });

    it('runs jobs sharing a queue key one at a time, in order', async () => {
      const kind = `test.ordered.${t.engine}`;
      const seen: number[] = [];
      let running = 0;
      let overlap = false;
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(await enqueue(kind, { i }, 'key-1'));
      start([
        {
          kind,
          retryScheduleMs: () => [10],
          async run(job) {
            if (running++ > 0) overlap = true;
            await sleep(5);
            seen.push((JSON.parse(job.payload) as { i: number }).i);
            running--;
            return { outcome: 'done' };
          },
        },
      ]);
      await until(async () => (await findJob(t.services.store.db, ids.at(-1)!))?.state === 'done');
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(overlap).toBe(false);
    });

    it('a run that lost its lease commits nothing, even when its own worker claimed the job again', async () => {
      const kind = `test.slow.${t.engine}`;
      const id = await enqueue(kind);
      const gates: (() => void)[] = [];
      let runs = 0;
      const w = start([
        {
          kind,
          retryScheduleMs: () => [10],
          async run() {
            const n = ++runs;
            await new Promise<void>((r) => gates.push(r));
            return { outcome: 'done', write: writeEffect(`run${n}:${id}`, 'x') };
          },
        },
      ]);
      try {
        // The lease (200 ms in this file) runs out while run 1 is stuck, so the job is claimed again (run 2).
        await until(async () => runs === 2);
        expect(await findJob(t.services.store.db, id)).toMatchObject({ lease_owner: w.owner, attempts: 2 });
        gates[0]!();
        // Run 1 is done deciding once its commit has been refused (the worker logs the lost lease).
        const leaseLost = () => logged.filter((l) => l.level === 'warn' && l.fields.jobId === id && /lease lost/.test(l.message));
        await until(async () => leaseLost().length === 1);
        expect(await effect(`run1:${id}`)).toBeUndefined();
        expect(await findJob(t.services.store.db, id)).toMatchObject({ state: 'queued', lease_owner: w.owner, attempts: 2 });
        gates[1]!();
        await until(async () => (await findJob(t.services.store.db, id))?.state === 'done');
        expect((await effect(`run2:${id}`))?.value).toBe('x');
        expect(await effect(`run1:${id}`)).toBeUndefined();
        expect(leaseLost()).toHaveLength(1);
      } finally {
        for (const g of gates) g();
      }
    });

    /** A kind whose runs can be written together; `bad` runs fail their write, alone or together. */
    function togetherKind(kind: string, bad: Set<string>) {
      const together: number[] = [];
      const write = async (uow: UnitOfWork, ids: string[]) => {
        const failing = ids.find((id) => bad.has(id));
        if (failing) throw new Error(`bad run ${failing}`);
        await uow.db.insertInto('server_settings').values(ids.map((id) => ({ key: `together:${id}`, value: 'x' }))).execute();
      };
      const handler: JobHandler = {
        kind,
        retryScheduleMs: () => [],
        async run(job) {
          return { outcome: 'done', write: (uow) => write(uow, [job.id]), together: job.id };
        },
        async writeTogether(uow, runs) {
          together.push(runs.length);
          await write(uow, runs as string[]);
        },
      };
      return { handler, together };
    }

    it('writes the runs of a kind together in one go when several finish for one commit', async () => {
      const kind = `test.together.${t.engine}`;
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await enqueue(kind));
      const { handler, together } = togetherKind(kind, new Set());
      start([handler]);
      await until(async () => (await Promise.all(ids.map((id) => findJob(t.services.store.db, id)))).every((j) => j?.state === 'done'));
      for (const id of ids) expect((await effect(`together:${id}`))?.value).toBe('x');
      // The first run to finish commits at once, alone; the rest wait for that commit and go together.
      expect(Math.max(...together)).toBeGreaterThanOrEqual(2);
    });

    it('a run whose write fails among runs written together fails alone: the others land', async () => {
      const kind = `test.together-bad.${t.engine}`;
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await enqueue(kind));
      const bad = ids[3]!;
      const { handler, together } = togetherKind(kind, new Set([bad]));
      start([handler]);
      await until(async () => (await Promise.all(ids.map((id) => findJob(t.services.store.db, id)))).every((j) => j?.state !== 'queued'));
      expect(together.some((n) => n >= 2)).toBe(true);
      for (const id of ids) {
        const job = await findJob(t.services.store.db, id);
        if (id === bad) {
          expect(job).toMatchObject({ state: 'failed' });
          expect(job?.last_error).toContain(`bad run ${bad}`);
          expect(await effect(`together:${id}`)).toBeUndefined();
        } else {
          expect(job?.state).toBe('done');
          expect((await effect(`together:${id}`))?.value).toBe('x');
        }
      }
    });

    it('claims several kinds in one call, each up to its own limit, and never a job another claim holds', async () => {
      const [a, b, c] = ['a', 'b', 'c'].map((k) => `test.bykind.${k}.${t.engine}`) as [string, string, string];
      const ids = { [a]: [] as string[], [b]: [] as string[], [c]: [] as string[] };
      for (let i = 0; i < 3; i++) for (const kind of [a, b, c]) ids[kind]!.push(await enqueue(kind));
      const { store } = t.services;
      const first = await claimDueJobsByKind(store, { owner: 'first', leaseMs: 60_000, limits: new Map([[a, 1], [b, 2], [c, 0]]) });
      // Oldest first within each kind; a kind with no free slot is not claimed.
      expect(first.map((j) => j.id).sort()).toEqual([ids[a]![0], ids[b]![0], ids[b]![1]].sort());
      expect(first.every((j) => j.lease_owner === 'first' && j.attempts === 1)).toBe(true);
      const second = await claimDueJobsByKind(store, { owner: 'second', leaseMs: 60_000, limits: new Map([[a, 5], [b, 5], [c, 1]]) });
      expect(second.map((j) => j.id).sort()).toEqual([ids[a]![1], ids[a]![2], ids[b]![2], ids[c]![0]].sort());
      expect(await claimDueJobsByKind(store, { owner: 'third', leaseMs: 60_000, limits: new Map([[a, 5], [b, 5]]) })).toEqual([]);
    });

    it('claims and reads the next due time in one call: the jobs it claimed are not what is next due', async () => {
      const { store } = t.services;
      const kind = `test.nextdue.${t.engine}`;
      const due = [await enqueue(kind), await enqueue(kind)];
      const laterId = newId('Job');
      await store.transaction((uow) => enqueueJob(uow, { id: laterId, kind, payload: {}, runAt: Date.now() + 5_000 }));
      const { jobs, nextDueMs } = await claimDueJobsAndNextDue(store, { owner: 'me', leaseMs: 60_000, limits: new Map([[kind, 5]]) }, { kinds: [kind], lookbackMs: 1_000 });
      expect(jobs.map((j) => j.id).sort()).toEqual([...due].sort());
      expect(jobs.every((j) => j.lease_owner === 'me' && j.attempts === 1 && j.kind === kind && typeof j.run_at === 'number')).toBe(true);
      // The later job, by the database's clock (the claimed ones, due already, would make it negative).
      expect(nextDueMs).toBeGreaterThan(4_000);
      expect(nextDueMs).toBeLessThanOrEqual(5_000);
      // Nothing left to claim: no job, and the same later job next.
      const again = await claimDueJobsAndNextDue(store, { owner: 'me', leaseMs: 60_000, limits: new Map([[kind, 5]]) }, { kinds: [kind], lookbackMs: 1_000 });
      expect(again.jobs).toEqual([]);
      expect(again.nextDueMs).toBeGreaterThan(4_000);
    });

    it("a job enqueued due now is due at once by the database's clock, also within the same millisecond", async () => {
      const { store } = t.services;
      const kind = `test.now.${t.engine}`;
      // Truncating SQLite's julianday answered the millisecond before Date.now() about half the time.
      for (let i = 0; i < 200; i++) {
        const id = newId('Job');
        await store.transaction((uow) => enqueueJob(uow, { id, kind, payload: {} }));
        const claimed = await claimDueJobs(store, { owner: 'me', kinds: [kind], leaseMs: 60_000, limit: 1 });
        expect(claimed.map((j) => j.id)).toEqual([id]);
      }
    });

    it('records accepted deliveries and ends their jobs in one statement on PostgreSQL, only those whose lease the owner still holds', async () => {
      const { store } = t.services;
      const caller = await t.newCaller();
      const kind = `test.delivered.${t.engine}`;
      const [held, lost] = [await enqueue(kind), await enqueue(kind)] as [string, string];
      const claimed = await claimDueJobs(store, { owner: 'me', kinds: [kind], leaseMs: 60_000, limit: 2 });
      expect(claimed.map((j) => j.id).sort()).toEqual([held, lost].sort());
      // Another worker took `lost` over (its lease had run out): this owner must not record it.
      await store.db.updateTable('jobs').set({ lease_owner: 'other' }).where('id', '=', lost).execute();
      const events = [await produceEvent(t, caller), await produceEvent(t, caller)] as [string, string];
      const at = Date.now();
      const run = (jobId: string, eventId: string) => ({
        jobId,
        attempts: 1,
        at,
        attempt: { id: newId('WebhookAttempt'), event_id: eventId, platform_id: caller.platformId, attempted_at: at - 5, url: 'https://example.test/hook', response_status: 200, latency_ms: 5, error: null, response_excerpt: '{}' },
      });
      const ended = await recordDeliveredJobs(store, 'me', [run(held, events[0]), run(lost, events[1])]);
      if (t.engine === 'sqlite') {
        // No such statement: the worker commits deliveries in a unit of work, and nothing was written.
        expect(ended).toBeUndefined();
        expect((await findJob(store.db, held))?.state).toBe('queued');
        return;
      }
      expect(ended).toEqual(new Set([held]));
      expect(await findJob(store.db, held)).toMatchObject({ state: 'done', lease_owner: null });
      expect(await findJob(store.db, lost)).toMatchObject({ state: 'queued', lease_owner: 'other' });
      const state = (id: string) => store.db.selectFrom('webhook_events').select(['delivery_state', 'attempt_count', 'delivered_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(await state(events[0])).toEqual({ delivery_state: 'DELIVERED', attempt_count: 1, delivered_at: at });
      expect(await state(events[1])).toMatchObject({ delivery_state: 'PENDING', attempt_count: 0, delivered_at: null });
      const attempts = await store.db.selectFrom('webhook_attempts').select(['event_id', 'response_status']).where('event_id', 'in', events).execute();
      expect(attempts).toEqual([{ event_id: events[0], response_status: 200 }]);
    });

    it('takes over a job whose owner died once its lease expires', async () => {
      const kind = `test.orphan.${t.engine}`;
      const id = await enqueue(kind);
      const claimedAt = Date.now();
      const [dead] = await claimDueJobs(t.services.store, { owner: 'dead', kinds: [kind], leaseMs: 300, limit: 1 });
      expect(dead?.id).toBe(id);
      let ranAt = 0;
      start([
        {
          kind,
          retryScheduleMs: () => [10],
          async run() {
            ranAt = Date.now();
            return { outcome: 'done', write: writeEffect(`orphan:${id}`, 'ok') };
          },
        },
      ]);
      await until(async () => (await findJob(t.services.store.db, id))?.state === 'done');
      expect(ranAt - claimedAt).toBeGreaterThanOrEqual(300);
      expect((await findJob(t.services.store.db, id))?.attempts).toBe(2);
      expect(await finishJob(t.services.store, { id, owner: 'dead', state: 'done' })).toBe(false);
      expect((await effect(`orphan:${id}`))?.value).toBe('ok');
    });

    it('judges leases and retry times by the database clock: a worker whose clock runs an hour ahead neither takes a live lease nor skips a retry delay', async () => {
      const kind = `test.skewed.${t.engine}`;
      const id = await enqueue(kind);
      const claimedAt = Date.now();
      const [held] = await claimDueJobs(t.services.store, { owner: 'alive', kinds: [kind], leaseMs: 600, limit: 1 });
      expect(held?.id).toBe(id);
      const runs: number[] = [];
      const hourAhead = () => Date.now() + 3_600_000;
      start(
        [
          {
            kind,
            retryScheduleMs: () => [150, 150],
            async run() {
              runs.push(Date.now());
              if (runs.length === 1) return { outcome: 'retry', error: 'once more' };
              return { outcome: 'done', write: writeEffect(`skewed:${id}`, 'ok') };
            },
          },
        ],
        { clock: hourAhead },
      );
      await until(async () => (await findJob(t.services.store.db, id))?.state === 'done');
      expect(runs).toHaveLength(2);
      // By the skewed clock the lease ended an hour ago; by the database's it held for 600 ms, and
      // the worker (polling every 20 ms) first ran the job once it had.
      expect(runs[0]! - claimedAt).toBeGreaterThanOrEqual(550);
      // The retry waited its 150 ms (+/-20%) of the database's clock, not an hour of the worker's.
      expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(110);
      expect(runs[1]! - runs[0]!).toBeLessThan(2_000);
      expect(await findJob(t.services.store.db, id)).toMatchObject({ attempts: 3, lease_owner: null });
    });

    it('a worker whose clock runs an hour behind still takes over an expired lease', async () => {
      const kind = `test.behind.${t.engine}`;
      const id = await enqueue(kind);
      await claimDueJobs(t.services.store, { owner: 'dead', kinds: [kind], leaseMs: 200, limit: 1 });
      start([{ kind, retryScheduleMs: () => [10], run: async () => ({ outcome: 'done' }) }], { clock: () => Date.now() - 3_600_000 });
      await until(async () => (await findJob(t.services.store.db, id))?.state === 'done', 5_000);
      expect((await findJob(t.services.store.db, id))?.attempts).toBe(2);
    });

  },
  { JOB_LEASE_MS: '200', JOB_POLL_MS: '20' },
);

describeEachEngine(
  'job worker batches as units of work',
  (t) => {
    const workers: Worker[] = [];
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
    });
    const start = (handlers: JobHandler[]) => {
      const w = new Worker(t.services, handlers, t.app.log).start();
      workers.push(w);
      return w;
    };
    const state = async (id: string) => (await findJob(t.services.store.db, id))?.state;
    async function until(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('timed out');
        await sleep(10);
      }
    }

    it('a job whose write enqueues another wakes the workers when its batch commits, not JOB_POLL_MS (10 minutes here) later', async () => {
      const first = `test.first.${t.engine}`;
      const second = `test.second.${t.engine}`;
      const secondId = newId('Job');
      // The second kind's worker may take it only once the first job's write has run: before that its
      // ticks claim nothing, and after its first tick nothing but a wake-up makes it tick again.
      let secondMayRun = false;
      let looked = 0;
      start([{ kind: second, retryScheduleMs: () => [], concurrency: () => (looked++, secondMayRun ? 1 : 0), run: async () => ({ outcome: 'done' }) }]);
      await until(() => looked > 0);
      start([
        {
          kind: first,
          retryScheduleMs: () => [],
          run: async () => ({
            outcome: 'done',
            write: async (uow) => {
              secondMayRun = true;
              await enqueueJob(uow, { id: secondId, kind: second, payload: {} });
            },
          }),
        },
      ]);
      const firstId = newId('Job');
      await t.services.store.transaction((uow) => enqueueJob(uow, { id: firstId, kind: first, payload: {}, runAt: Date.now() - 5 }));
      await until(async () => (await state(secondId)) === 'done', 5_000);
      expect(await state(firstId)).toBe('done');
    });

    it("a job's write cannot leave its batch: handlers get no way to open a unit of work, and one handed the batch's joins it", async () => {
      // Checked by the compiler (tsc): what a handler is given has no transaction nor begin.
      expectTypeOf<JobServices['store']>().not.toHaveProperty('transaction');
      expectTypeOf<JobServices['store']>().not.toHaveProperty('begin');
      expectTypeOf<JobServices['platformConfig']>().not.toHaveProperty('update');
      const kind = `test.joined.${t.engine}`;
      const id = newId('Job');
      const key = `joined:${id}`;
      start([
        {
          kind,
          retryScheduleMs: () => [],
          run: async () => ({
            outcome: 'done',
            write: async (uow) => {
              // A service handed the batch's unit of work writes in it (on SQLite one of its own would wait for the batch forever).
              await t.services.store.transaction((joined) => joined.db.insertInto('server_settings').values({ key, value: 'x' }).execute(), uow);
              throw new Error('after the joined write');
            },
          }),
        },
      ]);
      await t.services.store.transaction((uow) => enqueueJob(uow, { id, kind, payload: {}, runAt: Date.now() - 5 }));
      await until(async () => (await state(id)) === 'failed');
      expect((await findJob(t.services.store.db, id))?.last_error).toContain('after the joined write');
      // Undone with the job's savepoint: it was written in the batch.
      expect(await t.services.store.db.selectFrom('server_settings').select('key').where('key', '=', key).executeTakeFirst()).toBeUndefined();
    });
  },
  { JOB_POLL_MS: '600000', JOB_SAFETY_POLL_MS: '600000' },
);

describe.skipIf(!engineAvailable('postgres'))('job worker commits on PostgreSQL', () => {
  let db: TestDatabase | undefined;
  let services: Services | undefined;
  let worker: Worker | undefined;
  afterAll(async () => {
    await worker?.stop();
    await services?.store.close();
    await db?.drop();
  });

  it('commits in short transactions on several lanes: a job whose write is slow holds up no job that finishes after it', async () => {
    db = await createTestDatabase('postgres');
    services = await openServices(loadConfig({ ...db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent', JOB_POLL_MS: '20' }));
    const store = services.store;
    const kind = 'test.short';
    const enqueue = async (payload: unknown) => {
      const id = newId('Job');
      await store.transaction((uow) => enqueueJob(uow, { id, kind, payload }));
      return id;
    };
    const effect = (key: string) => store.db.selectFrom('server_settings').selectAll().where('key', '=', key).executeTakeFirst();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let slowWriting = false;
    const slow = await enqueue({ slow: true });
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    worker = new Worker(
      services,
      [
        {
          kind,
          retryScheduleMs: () => [10],
          async run(job) {
            const isSlow = (JSON.parse(job.payload) as { slow: boolean }).slow;
            return {
              outcome: 'done',
              write: async (uow) => {
                if (isSlow) {
                  slowWriting = true;
                  await gate;
                }
                await uow.db.insertInto('server_settings').values({ key: `effect:${job.id}`, value: 'ok' }).execute();
              },
            };
          },
        },
      ],
      silent,
    ).start();
    try {
      const deadline = Date.now() + 5_000;
      while (!slowWriting && Date.now() < deadline) await sleep(5);
      expect(slowWriting).toBe(true);
      // A group commit would hold this job's finish behind the slow write's open transaction.
      const fast = await enqueue({ slow: false });
      const fastDeadline = Date.now() + 3_000;
      while ((await findJob(store.db, fast))?.state !== 'done' && Date.now() < fastDeadline) await sleep(10);
      expect((await findJob(store.db, fast))?.state).toBe('done');
      expect((await effect(`effect:${fast}`))?.value).toBe('ok');
      expect((await findJob(store.db, slow))?.state).toBe('queued');
    } finally {
      release();
    }
    const slowDeadline = Date.now() + 5_000;
    while ((await findJob(store.db, slow))?.state !== 'done' && Date.now() < slowDeadline) await sleep(10);
    expect((await effect(`effect:${slow}`))?.value).toBe('ok');
  });

  it('commits webhook deliveries in lanes of their own: every other lane held up does not hold up a delivery', async () => {
    await worker?.stop();
    const store = services!.store;
    const enqueue = async (kind: string) => {
      const id = newId('Job');
      await store.transaction((uow) => enqueueJob(uow, { id, kind, payload: {} }));
      return id;
    };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let held = 0;
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    worker = new Worker(
      services!,
      [
        {
          kind: 'test.held',
          retryScheduleMs: () => [10],
          // Each run finishes at its own time, so each takes a commit lane of its own, and its write waits.
          run: async () => ({
            outcome: 'done',
            write: async () => {
              held++;
              await gate;
            },
          }),
        },
        // Stands for a delivery: only its kind matters to the commit lanes.
        { kind: DELIVER_WEBHOOK_JOB, retryScheduleMs: () => [10], run: async () => ({ outcome: 'done' }) },
      ],
      silent,
    ).start();
    try {
      const heldIds: string[] = [];
      // One more than there are lanes (2 for the other jobs): every lane of theirs is busy, and one waits.
      for (let i = 0; i < 3; i++) {
        heldIds.push(await enqueue('test.held'));
        const deadline = Date.now() + 5_000;
        while (held < Math.min(i + 1, 2) && Date.now() < deadline) await sleep(5);
      }
      expect(held).toBe(2);
      const delivery = await enqueue(DELIVER_WEBHOOK_JOB);
      const deadline = Date.now() + 3_000;
      while ((await findJob(store.db, delivery))?.state !== 'done' && Date.now() < deadline) await sleep(10);
      expect((await findJob(store.db, delivery))?.state).toBe('done');
      for (const id of heldIds) expect((await findJob(store.db, id))?.state).toBe('queued');
    } finally {
      release();
    }
  });
});

describe('retry schedule', () => {
  it('is computed in one place with bounded jitter', async () => {
    const { retryDelayMs } = await import('../../src/jobs/backoff.js');
    expect(retryDelayMs(1, [1000], () => 0)).toBe(800);
    expect(retryDelayMs(1, [1000], () => 1)).toBe(1200);
    expect(retryDelayMs(2, [1000])).toBeUndefined();
  });
});
