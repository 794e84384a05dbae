import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config.js';
import { codeBlockAfter, headingAnchors, readDoc, ROOT, tableRows, withoutCodeBlocks } from './helpers/markdown.js';

const SRC = join(ROOT, 'src');
const DOC_PAGES = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const PAGES = ['README.md', 'ARCHITECTURE.md', ...DOC_PAGES];

/** Every folder under `dir` (relative to src/) and every file, recursively. */
function walk(dir: string): { folders: string[]; files: string[] } {
  const found = { folders: [] as string[], files: [] as string[] };
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      found.folders.push(relative(SRC, path));
      const inner = walk(path);
      found.folders.push(...inner.folders);
      found.files.push(...inner.files);
    } else found.files.push(relative(SRC, path));
  }
  return found;
}

describe('the settings table of docs/configuration-and-security.md', () => {
  it('documents every setting of the configuration schema, and no other', () => {
    const documented = tableRows(readDoc('docs/configuration-and-security.md'), '| Variable | Default | Meaning |').map((cells) => {
      expect(cells[0], cells.join(' | ')).toMatch(/^`[A-Z0-9_]+`$/);
      return cells[0]!.slice(1, -1);
    });
    const settings = Object.keys(ConfigSchema.properties);
    expect(documented.filter((name, i) => documented.indexOf(name) !== i), 'settings documented twice').toEqual([]);
    expect(settings.filter((name) => !documented.includes(name)), 'settings of src/config.ts missing from the table').toEqual([]);
    expect(documented.filter((name) => !settings.includes(name)), 'documented settings src/config.ts does not have').toEqual([]);
  });
});

describe('the source tree of docs/development.md', () => {
  const tree = codeBlockAfter(readDoc('docs/development.md'), '## Source tree');
  const folderNames = new Set([...tree.matchAll(/(?<![\w.-])([a-z][\w-]*)\/(?!\w)/g)].map((m) => m[1]!));
  const fileNames = new Set([...tree.matchAll(/(?<![\w.-])([a-z0-9][\w.-]*\.ts)\b/g)].map((m) => m[1]!));
  const src = walk(SRC);

  it('names every folder of src/, every module at its top and every module of src/store/', () => {
    const modules = src.files.filter((f) => f.endsWith('.ts') && ['.', 'store'].includes(dirname(f)));
    expect(src.folders.filter((f) => !folderNames.has(basename(f))), 'folders not in the tree').toEqual([]);
    expect(modules.filter((f) => !fileNames.has(basename(f))), 'modules not in the tree').toEqual([]);
  });

  it('names no folder or module that does not exist', () => {
    const folders = new Set([...src.folders.map((f) => basename(f)), ...['src', 'test', 'bench'].filter((d) => existsSync(join(ROOT, d)))]);
    const files = new Set(src.files.map((f) => basename(f)));
    expect([...folderNames].filter((f) => !folders.has(f)), 'folders that do not exist').toEqual([]);
    expect([...fileNames].filter((f) => !files.has(f)), 'modules that do not exist').toEqual([]);
  });
});

describe('links between the documentation pages', () => {
  it('the README links to every page of docs/', () => {
    const readme = readDoc('README.md');
    expect(DOC_PAGES.filter((page) => !readme.includes(`](${page})`))).toEqual([]);
  });

  it.each(PAGES)('%s links only to files and headings that exist', (page) => {
    const broken: string[] = [];
    for (const [, target] of withoutCodeBlocks(readDoc(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue; // http:, https:, mailto: leave the repository
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? page : join(dirname(page), path);
      if (!existsSync(join(ROOT, file))) broken.push(`${target}: no file ${file}`);
      else if (anchor !== undefined && !headingAnchors(readDoc(file)).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s names only source and test files that exist', (page) => {
    const paths = [...readDoc(page).matchAll(/`((?:src|test|bench)\/[\w./-]+)`/g)].map((m) => m[1]!);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });
});
