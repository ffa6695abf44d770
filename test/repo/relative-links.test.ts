/**
 * The relative links of the README, docs/ and the examples' READMEs lead somewhere: the file exists, and a
 * `#anchor` into a Markdown file names one of its headings (as GitHub makes anchors of headings).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function markdownFiles(): string[] {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(REPO, 'docs', name));
  const examples = readdirSync(join(REPO, 'examples'))
    .map((name) => join(REPO, 'examples', name, 'README.md'))
    .filter((path) => existsSync(path));
  return [join(REPO, 'README.md'), ...docs, ...examples];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => headingAnchor(match[1] ?? '')));
}

/** The targets of `[text](target)` links outside code blocks and code spans, with their line numbers. */
function links(markdown: string): { target: string; line: number }[] {
  const lines = markdown.split('\n');
  const found: { target: string; line: number }[] = [];
  let inFence = false;
  lines.forEach((text, index) => {
    if (text.startsWith('```')) inFence = !inFence;
    if (inFence) return;
    const outsideSpans = text.replace(/`[^`]*`/g, '');
    for (const match of outsideSpans.matchAll(/\]\(([^)\s]+)\)/g))
      found.push({ target: match[1] ?? '', line: index + 1 });
  });
  return found;
}

/** `file:line: target (why)` for each relative link that leads nowhere. */
function brokenLinks(file: string): string[] {
  const markdown = readFileSync(file, 'utf8');
  return links(markdown).flatMap(({ target, line }) => {
    if (/^[a-z]+:/i.test(target)) return [];
    const [path = '', anchor] = target.split('#');
    const where = path === '' ? file : resolve(dirname(file), path);
    const at = `${relative(REPO, file)}:${line}: ${target}`;
    if (!existsSync(where)) return [`${at} (no such file)`];
    if (anchor === undefined || !where.endsWith('.md') || statSync(where).isDirectory()) return [];
    return anchorsOf(readFileSync(where, 'utf8')).has(anchor) ? [] : [`${at} (no such heading)`];
  });
}

describe('relative links in the README and docs', () => {
  it('computes anchors as GitHub does', () => {
    expect(headingAnchor('Distillation: solve, distil, exec')).toBe('distillation-solve-distil-exec');
    expect(headingAnchor('Tracing (OpenTelemetry)')).toBe('tracing-opentelemetry');
    expect(headingAnchor('`weft/core`: the light part')).toBe('weftcore-the-light-part');
  });

  it('every relative link leads to a file, and every #anchor to a heading', () => {
    expect(markdownFiles().flatMap(brokenLinks)).toEqual([]);
  });
});
