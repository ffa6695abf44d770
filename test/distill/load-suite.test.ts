/** The suite loader: a good suite, and every kind of bad task.yaml located (file:line:column field), all at once. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { loadSuite } from '../../src/distill/load-suite.js';

const TOOLS = 'tools:\n  - kind: module\n    path: ./math-tools.mjs\n';
const MODULE =
  "export const add = { description: 'a + b', inputSchema: { type: 'object' }, execute: ({ a, b }) => a + b };\n";
const REFERENCE = JSON.stringify({
  name: 'plus_one',
  inputs: { n: { type: 'integer' } },
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'add', kind: 'tool', tool: 'add', args: { a: '{% inputs.n %}', b: 1 }, out: 'r' },
    { id: 'end', kind: 'end', output: '{% vars.r %}' },
  ],
  edges: [
    { from: 'start', to: 'add' },
    { from: 'add', to: 'end' },
  ],
});
const GOOD_TASK = `description: Add one to n.
category: arithmetic
tools: ../tools.yaml
inputs:
  n: { type: integer }
train:
  - { n: 1 }
tests:
  - { input: { n: 1 }, expected: 2 }
  - { input: { n: 2 }, expected: 3 }
  - { input: { n: 3 }, expected: 4 }
  - { input: { n: 4 }, expected: 5 }
  - { input: { n: 5 }, expected: 6 }
`;

function suiteDir(tasks: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-suite-'));
  writeFileSync(join(dir, 'tools.yaml'), TOOLS);
  writeFileSync(join(dir, 'math-tools.mjs'), MODULE);
  for (const [name, files] of Object.entries(tasks)) {
    mkdirSync(join(dir, name), { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, name, file), text);
  }
  return dir;
}

async function problems(dir: string): Promise<{ file?: string; line?: number; field?: string; message: string }[]> {
  const error = await loadSuite(dir).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WeftError);
  expect((error as WeftError).code).toBe('BAD_INPUT');
  return [...(error as WeftError).issues];
}

describe('loadSuite', () => {
  it('reads every task, its tools resolved beside task.yaml, the default reference when present', async () => {
    const dir = suiteDir({
      'plus-one': { 'task.yaml': GOOD_TASK, 'reference.workflow.json': REFERENCE },
      bare: { 'task.yaml': GOOD_TASK.replace('category: arithmetic\n', '') },
      shared: { 'notes.txt': 'not a task: no task.yaml' },
    });
    const suite = await loadSuite(dir);
    expect(suite.tasks.map((task) => task.name)).toEqual(['bare', 'plus-one']);
    const [bare, plusOne] = suite.tasks;
    expect(plusOne?.reference?.name).toBe('plus_one');
    expect(plusOne?.category).toBe('arithmetic');
    expect(plusOne?.tools).toEqual([join(dir, 'tools.yaml')]);
    expect(plusOne?.tests[4]).toEqual({ input: { n: 5 }, expected: 6 });
    expect(bare?.reference).toBeUndefined();
    expect(suite.warnings).toEqual([]);
    expect((await loadSuite(dir, { only: ['plus-one'] })).tasks.map((task) => task.name)).toEqual(['plus-one']);
  });

  it('names an unknown --task with a guess, and refuses a missing or empty suite folder', async () => {
    const dir = suiteDir({ 'plus-one': { 'task.yaml': GOOD_TASK } });
    await expect(loadSuite(dir, { only: ['plus-on'] })).rejects.toThrow('no task "plus-on" in');
    await expect(loadSuite(dir, { only: ['plus-on'] })).rejects.toThrow('did you mean "plus-one"?');
    await expect(loadSuite(join(dir, 'nowhere'))).rejects.toThrow('no suite folder');
    await expect(loadSuite(suiteDir({ empty: { 'readme.md': 'x' } }))).rejects.toThrow('holds no task');
  });

  it('locates every problem of every task at once', async () => {
    const dir = suiteDir({
      typo: { 'task.yaml': GOOD_TASK.replace('description:', 'descripton:') },
      'no-train': { 'task.yaml': GOOD_TASK.replace('train:\n  - { n: 1 }\n', 'train: []\n') },
      'no-expected': { 'task.yaml': GOOD_TASK.replace('{ input: { n: 2 }, expected: 3 }', '{ input: { n: 2 } }') },
      'bad-input': {
        'task.yaml': GOOD_TASK.replace('{ input: { n: 3 }, expected: 4 }', '{ input: { n: "three" }, expected: 4 }'),
      },
      'no-tools': { 'task.yaml': GOOD_TASK.replace('../tools.yaml', '../missing.tools.yaml') },
      'no-reference': { 'task.yaml': `${GOOD_TASK}reference: other.workflow.json\n` },
      'bad-reference': {
        'task.yaml': GOOD_TASK,
        'reference.workflow.json': REFERENCE.replace('"kind":"end"', '"kind":"stop"'),
      },
      'bad-yaml': { 'task.yaml': 'description: [unclosed\n' },
    });
    const found = await problems(dir);
    const find = (text: string) => found.find((issue) => issue.message.includes(text));
    expect(find('unknown field "descripton"')).toMatchObject({ line: 1, field: 'descripton' });
    expect(find('unknown field "descripton"')?.message).toContain('did you mean "description"?');
    expect(found.find((issue) => issue.file?.includes('typo') && issue.field === 'description')).toBeDefined();
    expect(find('at least one train input')).toMatchObject({ line: 6, field: 'train' });
    expect(find('needs "expected"')).toMatchObject({ line: 10, field: 'tests[1]' });
    expect(find('against "inputs"')).toMatchObject({ line: 11, field: 'tests[2].input.n' });
    expect(find('no tools file')).toMatchObject({ line: 3, field: 'tools' });
    expect(find('no reference workflow')).toMatchObject({ line: 14, field: 'reference' });
    const reference = find('reference workflow:');
    expect(reference?.file).toContain(join('bad-reference', 'reference.workflow.json'));
    expect(reference?.line).toBe(1);
    expect(found.find((issue) => issue.file?.includes('bad-yaml'))?.line).toBeTypeOf('number');
    // Each problem names its own task.yaml.
    for (const name of ['typo', 'no-train', 'no-expected', 'bad-input', 'no-tools', 'no-reference'])
      expect(
        found.some((issue) => issue.file === join(dir, name, 'task.yaml')),
        name,
      ).toBe(true);
  });

  it('warns (does not fail) with fewer than 5 tests, and refuses junk documents', async () => {
    const few = GOOD_TASK.replace(/ {2}- \{ input: \{ n: [345] \}.*\n/g, '');
    const suite = await loadSuite(suiteDir({ few: { 'task.yaml': few } }));
    expect(suite.warnings[0]?.message).toContain('2 tests; at least 5 are recommended');
    const junk = await problems(
      suiteDir({ list: { 'task.yaml': '- a\n- b\n' }, binary: { 'task.yaml': '\u0000\u0001\u0002garbage: [' } }),
    );
    expect(junk.some((issue) => issue.message.includes('a task file is an object'))).toBe(true);
    expect(junk.some((issue) => issue.file?.includes('binary'))).toBe(true);
  });

  it('refuses an oversized task file and deeply nested input before parsing them', async () => {
    const huge = suiteDir({ huge: { 'task.yaml': `description: x\n# ${'x'.repeat(5_100_000)}\n` } });
    await expect(loadSuite(huge)).rejects.toThrow(/larger|too large|bytes/);
    const deep = `${GOOD_TASK.replace('train:\n  - { n: 1 }\n', `train:\n  - { n: ${'['.repeat(500)}${']'.repeat(500)} }\n`)}`;
    const found = await problems(suiteDir({ deep: { 'task.yaml': deep } }));
    expect(found[0]?.message).toMatch(/nest/);
  });
});
