import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomerRow } from '../../src/domain/customers/customers.js';
import { IdempotencyKeys } from '../../src/http/idempotency-keys.js';
import { insertCustomer } from '../../src/store/customers-repo.js';
import { claimDueJobs, enqueueJob, enqueueJobs, finishJob } from '../../src/store/jobs-repo.js';
import { insertWebhookEvents } from '../../src/store/webhook-events-repo.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { openStore, type Store } from '../../src/store/store.js';
import { insertPlatform } from '../../src/store/tokens-repo.js';
import type { UnitOfWork } from '../../src/store/unit-of-work.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`the unit of work [${engine}]`, () => {
    let db: TestDatabase;
    let store: Store;
    const names = async (prefix: string) =>
      (await store.db.selectFrom('platforms').select('name').where('id', 'like', `${prefix}%`).orderBy('name').execute()).map((r) => r.name);
    const setting = async (key: string) => (await store.db.selectFrom('server_settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
    const listClock = async (platformId: string) => Number((await store.db.selectFrom('platforms').select('list_clock').where('id', '=', platformId).executeTakeFirstOrThrow()).list_clock);
    /** What a unit of work can queue, each observable after the commit: a hook's row, a listed customer's position, a signal. */
    const queueAll = async (uow: UnitOfWork, platformId: string, tag: string, signals: string[]) => {
      uow.beforeCommit(`hook:${tag}`, (u) => u.db.insertInto('server_settings').values({ key: `hook:${tag}`, value: 'ran' }).execute().then(() => undefined));
      const row = { ...newCustomerRow(platformId, { customerType: 'INDIVIDUAL' } as never, Date.now() - 60_000), platform_customer_id: tag };
      await insertCustomer(uow, row);
      uow.afterCommit(() => signals.push(tag));
      return row;
    };
    const position = async (id: string) => (await store.db.selectFrom('customers').select('list_position').where('id', '=', id).executeTakeFirst())?.list_position;
    const newPlatform = async (name: string) => {
      const id = `Platform:${name}-${engine}`;
      await insertPlatform(store.db, { id, name, created_at: 1 });
      return id;
    };

    beforeAll(async () => {
      db = await createTestDatabase(engine);
      store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      await migrateToLatest(store);
    });
    afterAll(async () => {
      await store.close();
      await db.drop();
    });

    // What a service does when it is handed a unit of work: a write through it and one in a store.transaction that joins it.
    const serviceWork = async (uow: UnitOfWork, prefix: string) => {
      await insertPlatform(uow.db, { id: `${prefix}a`, name: `${prefix}a`, created_at: 1 });
      await store.transaction((joined) => insertPlatform(joined.db, { id: `${prefix}b`, name: `${prefix}b`, created_at: 2 }), uow);
    };

    it('an outer unit of work that fails takes back the writes made inside it, a joined store.transaction included', async () => {
      await expect(
        store.transaction(async (uow) => {
          await serviceWork(uow, 'Platform:rolled-');
          await insertPlatform(uow.db, { id: 'Platform:rolled-c', name: 'Platform:rolled-c', created_at: 3 });
          expect((await uow.db.selectFrom('platforms').select('name').where('id', 'like', 'Platform:rolled-%').execute()).length).toBe(3);
          throw new Error('after the work');
        }),
      ).rejects.toThrow('after the work');
      expect(await names('Platform:rolled-')).toEqual([]);
    });

    it('an outer unit of work that commits commits them together', async () => {
      await store.transaction(async (uow) => {
        await serviceWork(uow, 'Platform:kept-');
        await insertPlatform(uow.db, { id: 'Platform:kept-c', name: 'Platform:kept-c', created_at: 3 });
      });
      expect(await names('Platform:kept-')).toEqual(['Platform:kept-a', 'Platform:kept-b', 'Platform:kept-c']);
    });

    it('after-commit signals run once the commit is done, once however often asked, and never after a rollback', async () => {
      const signals: string[] = [];
      const kept = await store.begin();
      await serviceWork(kept, 'Platform:begun-');
      // Seen from outside the unit of work when it runs: the signal follows the COMMIT.
      const seen = async () => signals.push(`seen ${(await names('Platform:begun-')).length}`);
      const signal = () => void seen();
      kept.afterCommit(signal);
      kept.afterCommit(signal);
      kept.afterCommit(() => signals.push('kept'));
      expect(signals).toEqual([]);
      await kept.commit();
      await expect.poll(() => signals).toEqual(['kept', 'seen 2']);

      const dropped = await store.begin();
      await serviceWork(dropped, 'Platform:dropped-');
      dropped.afterCommit(() => signals.push('dropped'));
      await dropped.rollback();
      expect(signals).toEqual(['kept', 'seen 2']);
      expect(await names('Platform:dropped-')).toEqual([]);

      await expect(
        store.transaction(async (uow) => {
          uow.afterCommit(() => signals.push('thrown'));
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(signals).toEqual(['kept', 'seen 2']);
    });

    it('outside any unit of work store.db is the database and the work commits as it goes', async () => {
      await insertPlatform(store.db, { id: 'Platform:plain-a', name: 'Platform:plain-a', created_at: 1 });
      expect(await names('Platform:plain-')).toEqual(['Platform:plain-a']);
    });

    it('a rolled-back savepoint drops exactly what it queued: its hooks, its list rows and its after-commit signals', async () => {
      const platformId = await newPlatform('savepoints');
      const signals: string[] = [];
      const clockBefore = await listClock(platformId);
      const rows = await store.transaction(async (uow) => {
        const base = await queueAll(uow, platformId, 'base', signals);
        const released = await uow.savepoint((u) => queueAll(u, platformId, 'released', signals));
        let dropped!: Awaited<ReturnType<typeof queueAll>>;
        await expect(
          uow.savepoint(async (u) => {
            dropped = await queueAll(u, platformId, 'dropped', signals);
            // Nested inside the one rolled back: released into it, then dropped with it.
            await u.savepoint((inner) => queueAll(inner, platformId, 'nested', signals));
            throw new Error('undo this savepoint');
          }),
        ).rejects.toThrow('undo this savepoint');
        return { base, released, dropped };
      });
      expect(signals.sort()).toEqual(['base', 'released']);
      expect(await setting('hook:base')).toBe('ran');
      expect(await setting('hook:released')).toBe('ran');
      expect(await setting('hook:dropped')).toBeUndefined();
      expect(await setting('hook:nested')).toBeUndefined();
      // The kept rows were placed at commit (after their creation time); the dropped one is gone.
      expect(await position(rows.base.id)).toBeGreaterThan(rows.base.created_at);
      expect(await position(rows.released.id)).toBe(await position(rows.base.id));
      expect(await position(rows.dropped.id)).toBeUndefined();
      expect(await listClock(platformId)).toBeGreaterThan(clockBefore);
    });

    it('a before-commit hook asked again under its key runs once, with the latest request, before the list positions (rows it lists get theirs)', async () => {
      const platformId = await newPlatform('hooks');
      const order: string[] = [];
      let listedByHook!: ReturnType<typeof newCustomerRow>;
      await store.transaction(async (uow) => {
        uow.beforeCommit('same', async () => void order.push('first request'));
        uow.beforeCommit('other', async () => void order.push('other'));
        uow.beforeCommit('same', async (u) => {
          order.push('latest request');
          listedByHook = newCustomerRow(platformId, { customerType: 'INDIVIDUAL' } as never, Date.now() - 60_000);
          await insertCustomer(u, listedByHook);
        });
      });
      expect(order).toEqual(['other', 'latest request']);
      expect(await position(listedByHook.id)).toBeGreaterThan(listedByHook.created_at);
    });

    it('jobs enqueued in a commit wake the listeners once, after it; a rollback wakes nobody', async () => {
      let wakes = 0;
      const stop = store.onJobsEnqueued(() => wakes++);
      try {
        const kind = `test.uow.${engine}`;
        await store.transaction(async (uow) => {
          await enqueueJob(uow, { id: `Job:${engine}-1`, kind, payload: {} });
          await enqueueJob(uow, { id: `Job:${engine}-2`, kind, payload: {} });
          expect(wakes).toBe(0);
        });
        expect(wakes).toBe(1);
        await expect(
          store.transaction(async (uow) => {
            await enqueueJob(uow, { id: `Job:${engine}-3`, kind, payload: {} });
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(wakes).toBe(1);
        const dropped = await store.transaction(async (uow) => {
          await uow.savepoint(async (u) => enqueueJob(u, { id: `Job:${engine}-4`, kind, payload: {} })).then(() => undefined);
          return uow.savepoint(async (u) => {
            await enqueueJob(u, { id: `Job:${engine}-5`, kind, payload: {} });
            throw new Error('undo');
          }).catch((err: Error) => err.message);
        });
        expect(dropped).toBe('undo');
        // Job 4's savepoint was released: one wake for the commit.
        expect(wakes).toBe(2);
      } finally {
        stop();
      }
      await store.transaction((uow) => enqueueJob(uow, { id: `Job:${engine}-6`, kind: 'test.uow.stopped', payload: {} }));
      expect(wakes).toBe(2);
    });

    it('jobs enqueued under a lease grant are inserted leased to its owner (due now, no queue key, up to the limit), handed over after the commit, and no claim takes them', async () => {
      const kind = `test.leased.${engine}`;
      const other = `test.unleased.${engine}`;
      const platformId = await newPlatform('leased');
      let wakes = 0;
      const stop = store.onJobsEnqueued(() => wakes++);
      const uow = await store.begin();
      try {
        uow.leaseEnqueuedJobs('worker-a', 30_000, new Map([[kind, 3]]));
        await enqueueJobs(uow, [
          { id: `Job:${engine}-l1`, kind, payload: { n: 1 } },
          { id: `Job:${engine}-l2`, kind, payload: { n: 2 }, queueKey: 'k' },
          { id: `Job:${engine}-l3`, kind, payload: { n: 3 }, runAt: Date.now() + 60_000 },
          { id: `Job:${engine}-l4`, kind: other, payload: { n: 4 } },
        ]);
        // Rolled back: its leased job is not handed over, and its lease was spent (the grant is a bound).
        await uow
          .savepoint(async (u) => {
            await enqueueJobs(u, [{ id: `Job:${engine}-l5`, kind, payload: { n: 5 } }]);
            throw new Error('undo');
          })
          .catch(() => undefined);
        // The events and their delivery jobs in one statement on PostgreSQL: leased the same way.
        await insertWebhookEvents(uow, [{ id: `Webhook:${engine}-l`, platform_id: platformId, type: 'TEST', body: '{}', delivery_state: 'PENDING', created_at: 1, updated_at: 1 }], [
          { id: `Job:${engine}-l6`, kind, payload: { n: 6 } },
          { id: `Job:${engine}-l7`, kind, payload: { n: 7 } },
        ]);
        expect(uow.leasedJobs()).toEqual([]);
        await uow.commit();
      } finally {
        await uow.rollback();
        stop();
      }
      expect(uow.leasedJobs().map((j) => [j.id, j.lease_owner, j.attempts])).toEqual([
        [`Job:${engine}-l1`, 'worker-a', 1],
        [`Job:${engine}-l6`, 'worker-a', 1],
      ]);
      // Jobs were left for the workers (l2, l3, l4, l7): they are woken once.
      expect(wakes).toBe(1);
      const rows = await store.db.selectFrom('jobs').selectAll().where('id', 'like', `Job:${engine}-l%`).orderBy('id').execute();
      const lease = (id: string) => rows.find((r) => r.id === `Job:${engine}-${id}`)!;
      for (const id of ['l1', 'l6']) {
        expect(lease(id)).toMatchObject({ lease_owner: 'worker-a', attempts: 1, state: 'queued' });
        expect(Number(lease(id).lease_expires_at)).toBeGreaterThan(Date.now() + 20_000);
      }
      for (const id of ['l2', 'l3', 'l4', 'l7']) expect(lease(id)).toMatchObject({ lease_owner: null, lease_expires_at: null, attempts: 0 });
      expect(rows.map((r) => r.id)).not.toContain(`Job:${engine}-l5`);
      const claimed = await claimDueJobs(store, { owner: 'worker-b', kinds: [kind, other], leaseMs: 30_000, limit: 10 });
      expect(claimed.map((j) => j.id).sort()).toEqual([`Job:${engine}-l2`, `Job:${engine}-l4`, `Job:${engine}-l7`]);
      expect(await finishJob(store, { id: `Job:${engine}-l1`, owner: 'worker-a', state: 'done', attempts: 1 })).toBe(true);
    });

    it('an idempotent request answered 4xx drops its work and what the work queued, and keeps its answer; a 2xx keeps both', async () => {
      const platformId = await newPlatform('idempotent');
      const keys = new IdempotencyKeys(store);
      const fingerprint = { method: 'POST', path: '/customers', bodySha256: 'x' };
      const attempt = async (key: string, status: number) => {
        const claimed = await keys.claim('Token:t', key, fingerprint);
        if (claimed.outcome !== 'started') throw new Error(`claimed: ${claimed.outcome}`);
        const signals: string[] = [];
        // The service joins the request's unit of work (the route passes it as `within`).
        const row = await store.transaction((uow) => queueAll(uow, platformId, key, signals), claimed.attempt.unitOfWork);
        await claimed.attempt.finish({ status, contentType: null, body: null });
        return { row, signals };
      };
      const clockBefore = await listClock(platformId);
      const refused = await attempt('refused', 400);
      expect(refused.signals).toEqual([]);
      expect(await setting('hook:refused')).toBeUndefined();
      expect(await position(refused.row.id)).toBeUndefined();
      // Nothing was placed: the platform's list clock did not move.
      expect(await listClock(platformId)).toBe(clockBefore);
      expect(await keys.claim('Token:t', 'refused', fingerprint)).toEqual({ outcome: 'replay', answer: { status: 400, contentType: null, body: null } });

      const accepted = await attempt('accepted', 201);
      expect(accepted.signals).toEqual(['accepted']);
      expect(await setting('hook:accepted')).toBe('ran');
      expect(await position(accepted.row.id)).toBeGreaterThan(accepted.row.created_at);
    });
  });
}
