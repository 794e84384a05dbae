import type { Compilable, ControlledTransaction, RawBuilder } from 'kysely';
import { deferred, FLUSH_WRITES } from './pg-deferred-writes.js';
import type { Database } from './database.js';
import { assignListPositions, type ListedRows, type ListedTable } from './list-clock.js';
import type { Engine, Trx } from './store.js';
import type { JobRow } from './tables/jobs.js';

/** Work a unit of work runs as its last statements before COMMIT (see UnitOfWork.beforeCommit). */
export type CommitHook = (uow: UnitOfWork) => Promise<void>;

/** A savepoint opened with UnitOfWork.openSavepoint, ended by one of these. */
export interface Savepoint {
  /** Keeps its writes; what it queued joins the enclosing level, as if queued there. */
  release(): Promise<void>;
  /** Undoes its writes and drops exactly what it queued (hooks, list rows, after-commit signals). */
  rollback(): Promise<void>;
}

/** What a unit of work, or one of its open savepoints, has queued for its commit. */
class Queued {
  /** By key, in the order of their latest request. */
  readonly hooks = new Map<string, CommitHook>();
  readonly listed: ListedRows = new Map();
  /** Each runs once after COMMIT, however often it was asked for. */
  readonly signals = new Set<() => void>();
  /** Jobs inserted already leased to the unit of work's worker (see UnitOfWork.leaseEnqueuedJobs). */
  readonly leased: JobRow[] = [];

  hook(key: string, hook: CommitHook): void {
    this.hooks.delete(key); // re-inserted last: hooks run in the order of their latest request
    this.hooks.set(key, hook);
  }

  list(platformId: string, table: ListedTable, id: string): void {
    let byTable = this.listed.get(platformId);
    if (!byTable) this.listed.set(platformId, (byTable = new Map()));
    const ids = byTable.get(table);
    if (ids) ids.push(id);
    else byTable.set(table, [id]);
  }

  passTo(parent: Queued): void {
    for (const [key, hook] of this.hooks) parent.hook(key, hook);
    for (const [platformId, byTable] of this.listed) for (const [table, ids] of byTable) for (const id of ids) parent.list(platformId, table, id);
    for (const signal of this.signals) parent.signals.add(signal);
    parent.leased.push(...this.leased);
  }
}

/**
 * One open database transaction and what it has queued for its commit. The store begins it
 * (Store.transaction, or Store.begin for the idempotent request and the worker's batch) and it
 * is passed explicitly to whatever writes in it. Its commit runs the before-commit hooks, then
 * gives listed rows their positions (list-clock.ts), then COMMITs, then runs the after-commit
 * signals; a rollback drops all of it. Savepoints nest: each level queues apart, so rolling one
 * back drops exactly what it queued.
 */
export class UnitOfWork {
  /** The executor repositories read and write through (the whole transaction, whatever savepoint is open). */
  readonly db: Trx;
  /** The base level, then one per open savepoint, innermost last. */
  private readonly levels: Queued[] = [new Queued()];
  private savepointCount = 0;
  /** The jobs inserted leased, once committed (see leasedJobs). */
  private handedOver: readonly JobRow[] = [];
  /** Leases still to give to jobs this unit of work enqueues, per kind (see leaseEnqueuedJobs). */
  private grant: { owner: string; leaseMs: number; left: Map<string, number> } | undefined;

  constructor(
    private readonly trx: ControlledTransaction<Database, string[]>,
    readonly engine: Engine,
    /** The store's "jobs enqueued" signal (see Store.onJobsEnqueued). */
    private readonly jobsEnqueuedSignal: () => void,
    /** The clock list positions are taken from. */
    private readonly clock: () => number = Date.now,
  ) {
    this.db = trx;
  }

  private get current(): Queued {
    return this.levels[this.levels.length - 1]!;
  }

  /**
   * Runs `hook` as one of the last statements before COMMIT (never if it rolls back). A later hook
   * with the same key replaces an earlier one, so work asked for many times in one commit runs
   * once, with the latest state: e.g. one balance event per account per commit, however many
   * operations of a worker's batch moved it.
   */
  beforeCommit(key: string, hook: CommitHook): void {
    this.current.hook(key, hook);
  }

  /**
   * Puts a row this unit of work inserted (or made visible) on its platform's lists: it gets its
   * position just before COMMIT (see assignListPositions). Until then it keeps the provisional
   * position it was written with (its creation time).
   */
  listAtCommit(platformId: string, table: ListedTable, id: string): void {
    this.current.list(platformId, table, id);
  }

  /**
   * A write whose answer nobody reads and that no caller expects to fail (events, jobs, a batch's
   * row updates): on PostgreSQL it goes out with this unit of work's next statement, in the same
   * round trip (see pg-deferred-writes), so an error in it is thrown there; any statement after it
   * sees it, as if it had been sent alone. On SQLite, which has no round trips, it runs now.
   */
  async write(query: Compilable | RawBuilder<unknown>): Promise<void> {
    const compiled = 'isRawBuilder' in query ? query.compile(this.db) : query.compile();
    await this.db.executeQuery(this.engine === 'postgres' ? deferred(compiled) : compiled);
  }

  /** Runs `signal` once this commits (never if it rolls back); a signal asked for twice runs once. */
  afterCommit(signal: () => void): void {
    this.current.signals.add(signal);
  }

  /** Jobs were enqueued in this unit of work: the store wakes the workers once it commits (once per commit). */
  jobsEnqueued(): void {
    this.afterCommit(this.jobsEnqueuedSignal);
  }

  /**
   * Jobs of these kinds that this unit of work enqueues due now and with no queue key, up to each
   * kind's limit, are inserted already leased to `owner` (for `leaseMs` of the database's clock, a
   * first attempt), as if claimed; once it commits, {@link leasedJobs} answers them for `owner` to
   * run. Only a worker's batch asks for it: a landing's webhook deliveries then start in the same
   * turn as its commit, without waiting for a wake-up and a claim.
   */
  leaseEnqueuedJobs(owner: string, leaseMs: number, limits: ReadonlyMap<string, number>): void {
    this.grant = { owner, leaseMs, left: new Map(limits) };
  }

  /** The lease a job of `kind` enqueued now takes, if any is left (jobs-repo asks, row by row). */
  takeLease(kind: string): { owner: string; leaseMs: number } | undefined {
    const left = this.grant?.left.get(kind) ?? 0;
    if (left <= 0) return undefined;
    this.grant!.left.set(kind, left - 1);
    return this.grant!;
  }

  /** Whether jobs enqueued now may be leased (their rows then carry the lease's columns; see takeLease). */
  get leasing(): { leaseMs: number } | undefined {
    return this.grant;
  }

  /** A job was inserted leased (see takeLease): answered by leasedJobs once this commits, dropped if its savepoint rolls back. */
  enqueuedLeased(job: JobRow): void {
    this.current.leased.push(job);
  }

  /** After the commit: the jobs it inserted leased (see leaseEnqueuedJobs), for their owner to run now. */
  leasedJobs(): readonly JobRow[] {
    return this.handedOver;
  }

  /** Runs `fn` inside a savepoint: released when it resolves, rolled back (dropping what it queued) when it throws. */
  async savepoint<T>(fn: (uow: this) => Promise<T>): Promise<T> {
    const savepoint = await this.openSavepoint();
    let result: T;
    try {
      result = await fn(this);
      // Its deferred writes (see write) are sent inside it: one that fails undoes the savepoint, not the unit of work.
      if (this.engine === 'postgres') await this.db.executeQuery(FLUSH_WRITES);
    } catch (err) {
      await savepoint.rollback();
      throw err;
    }
    await savepoint.release();
    return result;
  }

  /** Opens a savepoint that the caller ends; savepoints end innermost first. */
  async openSavepoint(): Promise<Savepoint> {
    const name = `uow_${++this.savepointCount}`;
    const opened = await this.trx.savepoint(name).execute();
    const level = new Queued();
    this.levels.push(level);
    const end = () => {
      if (this.current !== level) throw new Error(`savepoint ${name} ended while a savepoint opened after it is still open`);
      this.levels.pop();
    };
    return {
      release: async () => {
        end();
        await opened.releaseSavepoint(name).execute();
        level.passTo(this.current);
      },
      rollback: async () => {
        end();
        await opened.rollbackToSavepoint(name).execute();
      },
    };
  }

  /** The before-commit hooks (and any they ask for), the list positions, COMMIT, then the after-commit signals. */
  async commit(): Promise<void> {
    if (this.levels.length > 1) throw new Error('a unit of work cannot commit while a savepoint is open');
    const queued = this.current;
    while (queued.hooks.size > 0) {
      const hooks = [...queued.hooks.values()];
      queued.hooks.clear();
      for (const hook of hooks) await hook(this);
    }
    await assignListPositions(this, queued.listed, this.clock());
    await this.trx.commit().execute();
    this.handedOver = queued.leased;
    for (const signal of queued.signals) signal();
  }

  /** Undoes everything and drops everything queued; nothing to do once it has ended. */
  async rollback(): Promise<void> {
    this.levels.splice(0, this.levels.length, new Queued());
    if (!this.trx.isCommitted && !this.trx.isRolledBack) await this.trx.rollback().execute();
  }
}
