import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';

/** The repository's root: documentation paths are relative to it. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A documentation file of the repository, e.g. `docs/errors.md`. */
export function readDoc(path: string): string {
  return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
}

/** The text with its fenced code blocks blanked out: a `# comment` in a shell block is no heading, a `[x](y)` in one no link. */
export function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** The cells of each row of the table whose header row starts with `header`, in the order written (throws if there is none). */
export function tableRows(markdown: string, header: string): string[][] {
  const at = markdown.indexOf(header);
  if (at < 0) throw new Error(`no table with the header ${header}`);
  const lines = markdown.slice(at).split('\n').slice(2);
  const end = lines.findIndex((l) => !l.startsWith('|'));
  return lines.slice(0, end < 0 ? lines.length : end).map((line) => line.split('|').slice(1, -1).map((c) => c.trim()));
}

/** The content of the first fenced code block after the heading line `heading` (throws if there is none). */
export function codeBlockAfter(markdown: string, heading: string): string {
  const at = markdown.search(new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  if (at < 0) throw new Error(`no heading ${heading}`);
  const block = /^```[^\n]*\n([\s\S]*?)^```$/m.exec(markdown.slice(at));
  if (!block) throw new Error(`no code block after ${heading}`);
  return block[1]!;
}

/** The anchors GitHub gives the headings of a page (`## Retries and Idempotency-Key` is `#retries-and-idempotency-key`). */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const headings = [...withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)].map((m) => m[1]!);
  return new Set(headings.map((h) => slugger.slug(h)));
}
