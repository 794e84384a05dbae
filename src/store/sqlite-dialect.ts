import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/** SQLite runs DDL inside transactions; saying so makes Kysely migrate in one transaction, which serializes processes. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateTransactionSqliteDriver extends SqliteDriver {
  // A read-then-write transaction begun DEFERRED fails with SQLITE_BUSY when another process writes meanwhile; IMMEDIATE waits on the busy timeout instead.
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's SQLite dialect with this service's two choices: transactions begin IMMEDIATE, and DDL is transactional. */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateTransactionSqliteDriver(this.settings);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
