import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** Static imports and re-exports (`import ... from`, `export ... from`, `import '...'`), `import('...')` calls and types. */
const IMPORT_PATTERNS = [/\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];

interface Import {
  /** The importing file, relative to src/, e.g. `store/owners-repo.ts`. */
  file: string;
  /** What it imports: a file relative to src/ (`domain/ids.ts`) or a package name (`fastify`, `node:http`). */
  target: string;
  /** True when the target is a file of src/. */
  local: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function importsOf(path: string): Import[] {
  const source = readFileSync(path, 'utf8');
  const file = relative(SRC, path);
  const specifiers = new Set(IMPORT_PATTERNS.flatMap((p) => [...source.matchAll(p)].map((m) => m[1]!)));
  return [...specifiers].map((s) =>
    s.startsWith('.')
      ? { file, target: relative(SRC, resolve(dirname(path), s)).replace(/\.js$/, '.ts'), local: true }
      : { file, target: packageName(s), local: false },
  );
}

const IMPORTS = sourceFiles(SRC).flatMap(importsOf);

/** The files of src/ each file loads when it runs: its imports that are not `import type` / `export type`. */
function runtimeGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of sourceFiles(SRC)) {
    const source = readFileSync(path, 'utf8');
    const loads = [...source.matchAll(/^(?:import|export)\s(?!type\b)[^;]*?\bfrom\s*['"](\.[^'"]+)['"]/gm)].map((m) =>
      relative(SRC, resolve(dirname(path), m[1]!)).replace(/\.js$/, '.ts'),
    );
    graph.set(relative(SRC, path), loads);
  }
  return graph;
}

/** Every cycle a depth-first walk of the graph meets, each as `a -> b -> a`. */
function cyclesOf(graph: Map<string, string[]>): string[] {
  const done = new Set<string>();
  const path: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string) => {
    done.add(file);
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next].join(' -> '));
      else if (!done.has(next)) visit(next);
    }
    path.pop();
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return cycles;
}

/** The folder under src/ a file lives in (`store`, `domain`, ...); '' for the files at the top. */
const layerOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');

function violations(rule: (i: Import) => boolean): string[] {
  return IMPORTS.filter(rule).map((i) => `${i.file} imports ${i.target}`);
}

const NETWORK_MODULES = new Set(['node:http', 'node:https', 'node:http2', 'node:net', 'node:tls', 'node:dgram', 'http', 'https', 'net', 'undici']);
const HTTP_FRAMEWORK = (name: string) => name === 'fastify' || name.startsWith('@fastify/') || name === 'find-my-way';
/** Files of routes/ that are not a resource's routes: the list of them and their shared type. */
const ROUTE_SUPPORT = new Set(['routes/index.ts', 'routes/types.ts']);

/** Each line of the src/ files `inFile` accepts that `pattern` matches, as `file:line: text`. */
function linesMatching(pattern: RegExp, inFile: (file: string) => boolean): string[] {
  return sourceFiles(SRC)
    .map((path) => ({ path, file: relative(SRC, path) }))
    .filter(({ file }) => inFile(file))
    .flatMap(({ path, file }) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((text, i) => (pattern.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : [])),
    );
}

/**
 * Beginning or ending a transaction with Kysely or in SQL: `db.startTransaction()`,
 * `db.transaction()`, `trx.commit().execute()`, `trx.rollback().execute()`, named savepoints, and
 * raw `begin` / `commit` / `rollback` / `savepoint` / `release` statements.
 */
const TRANSACTION_CONTROL =
  /\.startTransaction\(|\.transaction\(\)|\.(?:commit|rollback)\(\)\.execute\(|\.(?:releaseSavepoint|rollbackToSavepoint)\(|\.savepoint\(\s*['"`]|\bsql`\s*(?:begin|commit|rollback|savepoint|release)\b|prepare\(\s*['"`](?:begin|commit|rollback|savepoint|release)\b/i;
/** Beginning or ending a unit of work by hand (Store.begin, UnitOfWork.commit/rollback) rather than through Store.transaction. */
const UNIT_OF_WORK_BY_HAND = /\.begin\(\)|\.(?:commit|rollback)\(\)/;
/** The two that begin and end their unit of work themselves: the idempotent request (its answer commits with the work) and the worker's batch. */
const ENDS_ITS_OWN_UNIT_OF_WORK = new Set(['http/idempotency-keys.ts', 'jobs/worker.ts']);
/** The engine named in code: the word, or an engine's name as a string. */
const ENGINE_NAMED = /\bengine\b|'postgres'|'sqlite'|"postgres"|"sqlite"/i;

describe('architecture: data flows route -> domain -> store', () => {
  it('reads the imports it checks', () => {
    // A scanner that found nothing would pass every rule below.
    expect(IMPORTS.length).toBeGreaterThan(200);
    expect(IMPORTS).toContainEqual({ file: 'services.ts', target: 'store/store.ts', local: true });
    expect(IMPORTS).toContainEqual({ file: 'routes/index.ts', target: 'routes/cards.ts', local: true });
    expect(IMPORTS).toContainEqual({ file: 'app.ts', target: 'fastify', local: false });
    expect(IMPORTS).toContainEqual({ file: 'server.ts', target: 'v8-flags.ts', local: true });
  });

  it('store/ imports nothing from the layers above it', () => {
    expect(violations((i) => layerOf(i.file) === 'store' && i.local && ['domain', 'http', 'routes', 'schemas', 'jobs', 'cli'].includes(layerOf(i.target)))).toEqual([]);
  });

  it('domain/ imports no HTTP framework and no layer above it', () => {
    expect(violations((i) => layerOf(i.file) === 'domain' && (i.local ? ['http', 'routes', 'schemas', 'jobs', 'cli'].includes(layerOf(i.target)) : HTTP_FRAMEWORK(i.target)))).toEqual([]);
  });

  it('domain/ does no network I/O: no HTTP or socket module', () => {
    expect(violations((i) => layerOf(i.file) === 'domain' && !i.local && NETWORK_MODULES.has(i.target))).toEqual([]);
  });

  it('routes/ never touch store/', () => {
    expect(violations((i) => layerOf(i.file) === 'routes' && i.local && layerOf(i.target) === 'store')).toEqual([]);
  });

  it('console/ calls domain/ as a route does, never store/; no lower layer imports it', () => {
    expect(IMPORTS).toContainEqual({ file: 'console/pages/cards.ts', target: 'domain/cards/card-lifecycle.ts', local: true });
    expect(violations((i) => layerOf(i.file) === 'console' && i.local && layerOf(i.target) === 'store')).toEqual([]);
    expect(violations((i) => ['domain', 'store', 'routes', 'schemas', 'jobs'].includes(layerOf(i.file)) && i.local && layerOf(i.target) === 'console')).toEqual([]);
  });

  it('no route file imports another route file', () => {
    expect(violations((i) => layerOf(i.file) === 'routes' && i.file !== 'routes/index.ts' && i.local && layerOf(i.target) === 'routes' && !ROUTE_SUPPORT.has(i.target))).toEqual([]);
  });

  it('schemas/ import no route and no store', () => {
    expect(violations((i) => layerOf(i.file) === 'schemas' && i.local && ['routes', 'store'].includes(layerOf(i.target)))).toEqual([]);
  });

  it('no import cycle between runtime modules', () => {
    const graph = runtimeGraph();
    // The walker finds a cycle when there is one (a two-file loop made up here).
    expect(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']]]))).toEqual(['a.ts -> b.ts -> a.ts']);
    expect(graph.get('app.ts')?.length).toBeGreaterThan(3);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('no transaction is begun or finished outside store/; only the idempotent request and the worker batch end a unit of work by hand', () => {
    // The patterns find what they name (examples of each), and the scanner reads files: the store's own.
    for (const example of ['db.startTransaction().execute()', 'db.transaction().execute(fn)', 'trx.commit().execute()', 'trx.rollback().execute()', "trx.savepoint('a')", 'sp.releaseSavepoint(name)', 'sp.rollbackToSavepoint(name)', 'sql`savepoint x`', "conn.prepare('begin deferred')"]) {
      expect(TRANSACTION_CONTROL.test(example), example).toBe(true);
    }
    expect(TRANSACTION_CONTROL.test('uow.savepoint(async (sp) => write(sp))')).toBe(false);
    const inStore = (file: string) => layerOf(file) === 'store';
    expect(linesMatching(TRANSACTION_CONTROL, inStore).some((l) => l.startsWith('store/shared-store.ts:'))).toBe(true);
    expect(linesMatching(TRANSACTION_CONTROL, inStore).some((l) => l.startsWith('store/unit-of-work.ts:'))).toBe(true);
    expect(linesMatching(UNIT_OF_WORK_BY_HAND, (f) => ENDS_ITS_OWN_UNIT_OF_WORK.has(f)).length).toBeGreaterThanOrEqual(4);

    expect(linesMatching(TRANSACTION_CONTROL, (file) => !inStore(file))).toEqual([]);
    expect(linesMatching(UNIT_OF_WORK_BY_HAND, (file) => !inStore(file) && !ENDS_ITS_OWN_UNIT_OF_WORK.has(file))).toEqual([]);
  });

  it('domain/ knows no engine: no engine parameter, no store.engine, no engine name', () => {
    // The scanner finds the engine where it lives (the store decides per engine).
    expect(linesMatching(ENGINE_NAMED, (file) => file === 'store/cards-repo.ts').length).toBeGreaterThan(2);
    expect(linesMatching(ENGINE_NAMED, (file) => layerOf(file) === 'domain')).toEqual([]);
  });

  it('no live code imports a migration: migrations are history, only the migrator loads them', () => {
    const isMigration = (file: string) => file.startsWith('store/migrations/');
    expect(violations((i) => i.local && isMigration(i.target) && !isMigration(i.file) && i.file !== 'store/migrator.ts')).toEqual([]);
  });
});
