import { PostgresDialect, PostgresDriver, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type pg from 'pg';
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
    (connection as PreparingConnection).client.release();
  }
}

class PreparingConnection implements DatabaseConnection {
  constructor(
    readonly client: pg.PoolClient,
    private readonly statements: PreparedStatements,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const values = [...query.parameters];
    // pg's errors already carry the caller's stack (it captures one in client.query), so no wrapping here.
    const { command, rowCount, rows } =
      values.length === 0 ? await this.client.query(query.sql) : await this.statements.query(this.client, query.sql, values);
    return { numAffectedRows: AFFECTING.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  // Kysely streams from PostgreSQL through pg-cursor only, which this service does not use.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PostgreSQL (it needs pg-cursor): read in pages');
  }
}

