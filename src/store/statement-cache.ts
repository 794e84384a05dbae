import type SqliteDatabase from 'better-sqlite3';

const MAX_STATEMENTS = 1000;

/**
 * A connection whose statements are prepared once per SQL text: Kysely prepares every statement
 * anew, and caching them saves most of a point query's cost. The oldest is dropped past 1,000.
 */
export class StatementCache {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(private readonly connection: SqliteDatabase.Database) {}

  prepare(sql: string): SqliteDatabase.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.connection.prepare(sql);
      if (this.statements.size >= MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  get inTransaction(): boolean {
    return this.connection.inTransaction;
  }

  close(): void {
    this.connection.close();
  }
}
