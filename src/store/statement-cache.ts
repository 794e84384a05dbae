import type SqliteDatabase from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

const MAX_STATEMENTS = 1000;

/**
 * A connection whose statements are prepared once per SQL text: Kysely prepares every statement
 * anew, and caching them saves most of a point query's cost. The least recently used is dropped past 1,000.
 */
export class StatementCache {
  private readonly statements = new LRUCache<string, SqliteDatabase.Statement>({ max: MAX_STATEMENTS });

  constructor(private readonly connection: SqliteDatabase.Database) {}

  prepare(sql: string): SqliteDatabase.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.connection.prepare(sql);
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
