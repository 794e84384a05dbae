import type { CompiledQuery } from 'kysely';
import pg from 'pg';

/**
 * PostgreSQL: a transaction's BEGIN, and the writes a unit of work defers (UnitOfWork.write),
 * travel with the next statement its connection sends, in one round trip. node-postgres sends one
 * statement per round trip (no pipelining), so each is turned into a statement with its values
 * written in as quoted literals, and the lot goes out as one multi-statement text, that next
 * statement last (written out the same way when it has values): run in order, in the same
 * transaction, exactly as if sent one by one; the first error stops the rest and is thrown there.
 *
 * What it buys: a landing holds its funding account's row lock from the lock to COMMIT, and every
 * round trip in between is time every other landing on the account waits (bench webhooks); and a
 * round trip costs the server CPU, mostly the socket write that wakes PostgreSQL's backend (about a
 * fifth of the server's CPU at 150 transfers/s, in a CPU profile, before this).
 */

/** The compiled queries marked deferred (see deferred). */
const marked = new WeakSet<CompiledQuery>();

/** Marks a write to be sent with the connection's next statement (see PreparingConnection). */
export function deferred(query: CompiledQuery): CompiledQuery {
  marked.add(query);
  return query;
}

export function isDeferred(query: CompiledQuery): boolean {
  return marked.has(query);
}

/** Sends the deferred writes now, with no statement after them (a unit of work's savepoint ends with them). */
export const FLUSH_WRITES: CompiledQuery = Object.freeze({ sql: '', parameters: Object.freeze([]), query: { kind: 'RawNode', sqlFragments: [''], parameters: [] } }) as unknown as CompiledQuery;

/** A transaction's BEGIN (as Kysely sends it): held back too, to go with the transaction's first statement. */
export function opensTransaction(sqlText: string): boolean {
  return /^\s*(begin|start transaction)\b/i.test(sqlText);
}

/** Transaction control that undoes what was deferred since the last statement sent: the deferred writes are dropped. */
export function undoes(sqlText: string): boolean {
  return /^\s*rollback\b/i.test(sqlText);
}

/**
 * The statement with its values written in, or undefined when a value cannot be (then the write
 * is sent on its own, as any statement). A value becomes a quoted literal, which PostgreSQL types
 * from its context exactly as it types an untyped parameter: text, numbers, booleans and
 * one-dimensional arrays of them, as node-postgres would send them. Text holding a NUL is never
 * written in (PostgreSQL refuses it as a value; in a statement's text it would end the text).
 */
export function withValuesWritten(query: CompiledQuery): string | undefined {
  const literals: string[] = [];
  for (const value of query.parameters) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  const text = query.sql;
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      out += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      out += c;
      continue;
    }
    // Comments and dollar quoting are not written by this service's statements: send such a statement as it is.
    if (c === '-' && text[i + 1] === '-') return undefined;
    if (c === '/' && text[i + 1] === '*') return undefined;
    if (c === '$') {
      const digits = /^\d+/.exec(text.slice(i + 1))?.[0];
      if (digits === undefined) return undefined;
      const literal = literals[Number(digits) - 1];
      if (literal === undefined) return undefined;
      out += literal;
      i += digits.length;
      continue;
    }
    out += c;
  }
  return quote ? undefined : out;
}

function literalOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  const text = valueText(value);
  if (text === undefined || text.includes('\0')) return undefined;
  return pg.escapeLiteral(text);
}

/** The text node-postgres sends for a parameter (its prepareValue), for the types this service sends. */
function valueText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      if (!Array.isArray(value)) return undefined;
  }
  const elements: string[] = [];
  for (const element of value as unknown[]) {
    if (element === null || element === undefined) {
      elements.push('NULL');
      continue;
    }
    if (Array.isArray(element)) return undefined;
    const text = valueText(element);
    if (text === undefined) return undefined;
    elements.push(`"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  }
  return `{${elements.join(',')}}`;
}
