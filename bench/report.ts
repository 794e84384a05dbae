import { ENGINE_LABEL, type Engine } from './engines.js';

/** How the scenarios print what they measured: aligned tables, and PostgreSQL over SQLite from the same run. */

/** PostgreSQL's figure over SQLite's, or '-' when either is missing. */
export function ratio(postgres: number, sqlite: number): string {
  return Number.isFinite(postgres) && Number.isFinite(sqlite) && sqlite !== 0 ? (postgres / sqlite).toFixed(2) : '-';
}

/** Columns padded to their widest cell, right-aligned (numbers line up). */
export function alignedTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i]!)).join('  ');
  return `${[head, ...rows].map(line).join('\n')}\n`;
}

/** One measured quantity: its text per engine and, for a headline figure, the number PostgreSQL/SQLite divides. */
export interface Metric {
  label: string;
  values: Partial<Record<Engine, string>>;
  compare?: Partial<Record<Engine, number>>;
}

/**
 * A Markdown table with a column per engine and, with both engines, a PostgreSQL/SQLite column
 * filled for the metrics that have numbers to compare.
 */
export function engineTable(engines: Engine[], metrics: Metric[]): string {
  const both = engines.includes('sqlite') && engines.includes('postgres');
  const head = ['', ...engines.map((e) => ENGINE_LABEL[e]), ...(both ? ['PostgreSQL/SQLite'] : [])];
  const rows = metrics.map((m) => [
    m.label,
    ...engines.map((e) => m.values[e] ?? '-'),
    ...(both ? [m.compare ? ratio(m.compare.postgres ?? NaN, m.compare.sqlite ?? NaN) : ''] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return `${[line(head), `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n')}\n`;
}
