import { PostgresDialect, PostgresDriver, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type pg from 'pg';
import { FLUSH_WRITES, isDeferred, undoes, withValuesWritten } from './pg-deferred-writes.js';
import { PreparedStatements } from './pg-prepared-statements.js';

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
  /** Writes deferred in the open transaction, with their values written in (see pg-deferred-writes). */
  private deferred: string[] = [];

  constructor(
    readonly client: pg.PoolClient,
    private readonly statements: PreparedStatements,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (isDeferred(query)) {
      const text = withValuesWritten(query);
      if (text !== undefined) {
        this.deferred.push(text);
        return { rows: [] };
      }
    } else if (query === FLUSH_WRITES) {
      await this.flush();
      return { rows: [] };
    } else if (this.deferred.length > 0 && undoes(query.sql)) {
      this.deferred = [];
    } else if (this.deferred.length > 0 && query.parameters.length === 0) {
      // Transaction control (a savepoint, COMMIT) goes in the same round trip as the writes before it.
      const texts = [...this.deferred, query.sql];
      this.deferred = [];
      const results = (await this.client.query(texts.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
      return this.answer(Array.isArray(results) ? results[results.length - 1]! : results);
    }
    await this.flush();
    const values = [...query.parameters];
    // pg's errors already carry the caller's stack (it captures one in client.query), so no wrapping here.
    const result = values.length === 0 ? await this.client.query(query.sql) : await this.statements.query(this.client, query.sql, values);
    return this.answer(result);
  }

  private answer<R>({ command, rowCount, rows }: pg.QueryResult): QueryResult<R> {
    return { numAffectedRows: AFFECTING.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  private async flush(): Promise<void> {
    if (this.deferred.length === 0) return;
    const texts = this.deferred;
    this.deferred = [];
    await this.client.query(texts.join(';\n'));
  }

  /** Whatever is still deferred is dropped: a transaction ends with COMMIT or ROLLBACK, which send or drop it. */
  release(): void {
    this.deferred = [];
    this.client.release();
  }

  // Kysely streams from PostgreSQL through pg-cursor only, which this service does not use.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PostgreSQL (it needs pg-cursor): read in pages');
  }
}

