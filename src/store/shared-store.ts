import { EventEmitter } from 'node:events';
import type { ControlledTransaction } from 'kysely';
import type { Database } from './database.js';
import type { Db, Engine, Store } from './store.js';
import { UnitOfWork } from './unit-of-work.js';

const JOBS_ENQUEUED = 'jobs-enqueued';

/** The Store members shared by both engines: units of work on `root`, and the "jobs enqueued" signal. */
export function sharedStore(root: Db, engine: Engine, read: Store['read'], close: Store['close']): Store {
  const signals = new EventEmitter().setMaxListeners(100);
  const jobsEnqueued = () => void signals.emit(JOBS_ENQUEUED);
  const begin = async () => new UnitOfWork((await root.startTransaction().execute()) as ControlledTransaction<Database, string[]>, engine, jobsEnqueued);
  return {
    db: root,
    engine,
    read,
    close,
    begin,
    async transaction(fn, within) {
      if (within) return fn(within);
      const uow = await begin();
      try {
        const result = await fn(uow);
        await uow.commit();
        return result;
      } catch (err) {
        // The connection is released even when the rollback fails; the error worth reporting is the first.
        await uow.rollback().catch(() => undefined);
        throw err;
      }
    },
    onJobsEnqueued(listener) {
      signals.on(JOBS_ENQUEUED, listener);
      return () => void signals.off(JOBS_ENQUEUED, listener);
    },
    jobsEnqueued,
  };
}
