import { PostgresDialect, PostgresDriver, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type pg from 'pg';
import { FLUSH_WRITES, isDeferred, opensTransaction, undoes, withValuesWritten } from './pg-deferred-writes.js';
import { isPlannedEachRun, PreparedStatements } from './pg-prepared-statements.js';

/**
 * Distinct statement texts the query builder sends that are named (prepared once per connection)
 * at most; later texts run unnamed. The service's statements are a fixed few hundred shapes; the
 * cap only bounds what odd inputs (a multi-row insert of an unusual size) could add per connection.
 */
const MAX_NAMED_STATEMENTS = 512;

/** The commands whose row count Kysely reports as `numAffectedRows`, as its own PostgreSQL connection does. */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * Kysely's PostgreSQL dialect whose connections send every parameterized statement as a named
 * prepared statement, parsed and planned once per connection instead of on every execution.
 * Statements without parameters (transaction control, several statements in one text) run as they are.
 */
export class PreparingPostgresDialect extends PostgresDialect {
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new PreparingPostgresDriver(this.pool);
  }
}

/** Kysely's driver (transaction control, savepoints, destroy) over this dialect's own connections. */
class PreparingPostgresDriver extends PostgresDriver {
  private readonly statements = new PreparedStatements('q', MAX_NAMED_STATEMENTS);

  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new PreparingConnection(await this.pool.connect(), this.statements);
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PreparingConnection).release();
  }
}

class PreparingConnection implements DatabaseConnection {
  /** Statements held back to go with the next one (see pg-deferred-writes): a BEGIN, writes, with their values written in. */
  private deferred: string[] = [];
  /** The transaction's BEGIN is among them: nothing of the transaction has been sent yet. */
  private beginHeld = false;

  constructor(
    readonly client: pg.PoolClient,
    private readonly statements: PreparedStatements,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query === FLUSH_WRITES) {
      await this.flush();
      return { rows: [] };
    }
    const begins = opensTransaction(query.sql);
    if (begins || isDeferred(query)) {
      const text = begins ? query.sql : withValuesWritten(query);
      if (text !== undefined) {
        this.deferred.push(text);
        this.beginHeld ||= begins;
        return { rows: [] };
      }
    } else if (undoes(query.sql) && this.deferred.length > 0) {
      // What it would undo was never sent; a transaction none of which was sent needs no ROLLBACK.
      const unsent = this.beginHeld;
      this.deferred = [];
      this.beginHeld = false;
      if (unsent) return { rows: [] };
    } else if (this.deferred.length > 0) {
      // The statement goes in the same round trip as those held back, written out the same way
      // (unprepared: PostgreSQL parses it again, which costs less than the round trip; see pg-deferred-writes).
      const text = query.parameters.length === 0 ? query.sql : withValuesWritten(query);
      if (text !== undefined) {
        const texts = [...this.deferred, text];
        this.deferred = [];
        this.beginHeld = false;
        const results = (await this.client.query(texts.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
        return this.answer(Array.isArray(results) ? results[results.length - 1]! : results);
      }
    }
    await this.flush();
    const values = [...query.parameters];
    // pg's errors already carry the caller's stack (it captures one in client.query), so no wrapping here.
    const result =
      values.length === 0
        ? await this.client.query(query.sql)
        : isPlannedEachRun(query)
          ? await this.client.query({ text: query.sql, values })
          : await this.statements.query(this.client, query.sql, values);
    return this.answer(result);
  }

  private answer<R>({ command, rowCount, rows }: pg.QueryResult): QueryResult<R> {
    return { numAffectedRows: AFFECTING.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  private async flush(): Promise<void> {
    if (this.deferred.length === 0) return;
    const texts = this.deferred;
    this.deferred = [];
    this.beginHeld = false;
    await this.client.query(texts.join(';\n'));
  }

  /** Whatever is still held back is dropped: a transaction ends with COMMIT or ROLLBACK, which send or drop it. */
  release(): void {
    this.deferred = [];
    this.beginHeld = false;
    this.client.release();
  }

  // Kysely streams from PostgreSQL through pg-cursor only, which this service does not use.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PostgreSQL (it needs pg-cursor): read in pages');
  }
}

