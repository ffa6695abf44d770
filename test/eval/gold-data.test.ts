import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { loadGold } from '../../src/eval/gold-data.js';
import { GOLD_DIR, goldSets } from './gold-path.js';

const ANSWER = 'Node:\n1: open the door\n2: walk in\nEdge: (START,1) (1,2) (2,END)';

function record(id: string, answer = ANSWER, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    source: id.replace(/_\d+$/, ''),
    id,
    target: 'graph',
    conversations: [
      { role: 'system', content: 'You are a planner.' },
      { role: 'user', content: `Task: ${id}` },
      { role: 'assistant', content: answer },
    ],
    ...extra,
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'weft-gold-'));
}

/** The 1-based line of the `nth` line of `text` containing `needle`. */
function lineOf(text: string, needle: string, nth = 1): number {
  const lines = text.split('\n').flatMap((line, index) => (line.includes(needle) ? [index + 1] : []));
  const line = lines[nth - 1];
  if (line === undefined) throw new Error(`${needle} not ${nth} times in text`);
  return line;
}

async function loadError(path: string): Promise<WeftError> {
  try {
    await loadGold(path);
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('loadGold did not fail');
}

describe('loadGold on the WorfBench data', () => {
  it('reads one file with the line of each record, its task, system message and parsed answer', async () => {
    const file = join(GOLD_DIR, 'os.json');
    const text = readFileSync(file, 'utf8');
    const raw = JSON.parse(text) as { id: string; conversations: { content: string }[] }[];
    const gold = await loadGold(file);
    expect(gold.map((g) => g.id)).toEqual(raw.map((r) => r.id));
    // Each record of this file is a "{" line followed by its "source" line.
    const lines = text.split('\n');
    expect(gold.map((g) => [lines[g.line - 1], lines[g.line]])).toEqual(gold.map(() => ['{', '"source": "os",']));
    expect(gold.map((g) => g.line)).toEqual([...gold.map((g) => g.line)].sort((a, b) => a - b));
    expect(new Set(gold.map((g) => g.line)).size).toBe(gold.length);
    const first = gold[0]!;
    expect(first).toMatchObject({ source: 'os', scenario: 'embodied', file, index: 0 });
    expect(first.system).toBe(raw[0]!.conversations[0]!.content);
    expect(first.task).toBe(raw[0]!.conversations[1]!.content);
    expect(first.answer).toBe(raw[0]!.conversations[2]!.content);
    expect(first.workflow.nodes[0]).toBe(
      'execute bash code to find all .txt files containing "Linux" in the home directory',
    );
    expect(first.workflow.edges[0]).toEqual(['START', 1]);
  });

  it.each(goldSets())('reads a whole folder ($name, README ignored) with unique ids and scenarios', async (set) => {
    const gold = await loadGold(set.dir);
    expect(gold).toHaveLength(set.records);
    expect(new Set(gold.map((g) => g.id)).size).toBe(set.records);
    const counts: Record<string, number> = {};
    for (const g of gold) counts[String(g.scenario)] = (counts[String(g.scenario)] ?? 0) + 1;
    expect(counts).toEqual(
      set.full
        ? { 'function call': 357, embodied: 776, 'problem-solving': 400, 'open-grounded': 213 }
        : { 'function call': 19, embodied: 36, 'problem-solving': 18, 'open-grounded': 35 },
    );
    // Files in name order: alfworld first, wikihow last.
    expect(gold[0]!.source).toBe('alfworld');
    expect(gold.at(-1)!.source).toBe('wikihow');
    // Gold answers with trailing prose are read, and what was skipped is kept.
    expect(gold.some((g) => g.skipped.length > 0)).toBe(true);
  });
});

describe('loadGold on other files', () => {
  it('reads JSONL, a single-object .json file, and a folder in file-name order, ignoring other files', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'b.jsonl'),
      `${JSON.stringify(record('webshop_1'))}\n\n${JSON.stringify(record('webshop_2'))}\n`,
    );
    writeFileSync(join(dir, 'a.json'), JSON.stringify(record('lumos_9'), null, 2));
    writeFileSync(join(dir, 'README.md'), '# not data');
    writeFileSync(join(dir, 'notes.txt'), 'not data');
    const gold = await loadGold(dir);
    expect(gold.map((g) => [g.id, g.file, g.line, g.index])).toEqual([
      ['lumos_9', join(dir, 'a.json'), 1, 0],
      ['webshop_1', join(dir, 'b.jsonl'), 1, 0],
      ['webshop_2', join(dir, 'b.jsonl'), 3, 1],
    ]);
  });

  it('takes the source from the id, else from the file name, and keeps an unknown source without a scenario', async () => {
    const dir = tempDir();
    const file = join(dir, 'mybench.jsonl');
    const noSource = (id: string) => {
      const { source: _source, ...rest } = record(id);
      return rest;
    };
    writeFileSync(
      file,
      [noSource('alfworld_3'), noSource('free-form'), record('custom_1')].map((r) => JSON.stringify(r)).join('\n'),
    );
    const gold = await loadGold(file);
    expect(gold.map((g) => [g.source, g.scenario])).toEqual([
      ['alfworld', 'embodied'],
      ['mybench', undefined],
      ['custom', undefined],
    ]);
  });

  it('uses the last assistant message as the answer and the user message before it as the task', async () => {
    const dir = tempDir();
    const file = join(dir, 'x.jsonl');
    const conversations = [
      { role: 'user', content: 'Task: first' },
      { role: 'assistant', content: 'sure' },
      { role: 'user', content: 'Task: second' },
      { role: 'assistant', content: ANSWER },
    ];
    writeFileSync(file, JSON.stringify({ id: 'toolbench_1', conversations }));
    const [gold] = await loadGold(file);
    expect(gold).toMatchObject({ task: 'Task: second', answer: ANSWER, system: '' });
  });
});

describe('loadGold reports unusable gold, located by file, line and field', () => {
  it('a field of the wrong type in a JSON array file', async () => {
    const dir = tempDir();
    const file = join(dir, 'alfworld.json');
    const records = [record('alfworld_1'), record('alfworld_2'), record('alfworld_3')];
    (records[1]!.conversations as { content: unknown }[])[2]!.content = 12345;
    const text = JSON.stringify(records, null, 2);
    writeFileSync(file, text);
    const error = await loadError(file);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.issues).toEqual([
      {
        file,
        line: lineOf(text, '12345'),
        column: 9,
        field: '[1].conversations[2].content',
        message: 'expected a string, got a number',
      },
    ]);
  });

  it('a missing field, a non-object record, and a record with no assistant message, all at once', async () => {
    const dir = tempDir();
    const file = join(dir, 'webshop.json');
    const { id: _id, ...noId } = record('webshop_1');
    const noAnswer = { ...record('webshop_3'), conversations: [{ role: 'user', content: 'Task' }] };
    const text = JSON.stringify([noId, 'oops', noAnswer], null, 1);
    writeFileSync(file, text);
    const error = await loadError(file);
    expect(error.message).toMatch(/3 problems/);
    expect(error.issues.map(({ line, field, message }) => ({ line, field, message }))).toEqual([
      { line: 2, field: '[0].id', message: 'missing required field "id"' },
      { line: lineOf(text, '"oops"'), field: '[1]', message: 'expected a record object, got a string' },
      {
        line: lineOf(text, '"conversations"', 2),
        field: '[2].conversations',
        message: 'record "webshop_3" has no assistant message (the gold answer)',
      },
    ]);
  });

  it('a JSONL line that is not JSON, located at its column', async () => {
    const dir = tempDir();
    const file = join(dir, 'os.jsonl');
    writeFileSync(file, `${JSON.stringify(record('os_1'))}\n{"id": "os_2",, }\n`);
    const error = await loadError(file);
    expect(error.issues).toEqual([{ file, line: 2, column: 15, message: expect.stringMatching(/^invalid JSON: /) }]);
  });

  it('a JSON array file with a syntax error, at its line and column', async () => {
    const dir = tempDir();
    const file = join(dir, 'lumos.json');
    writeFileSync(file, '[\n  {"id": "lumos_1"}\n  {"id": "lumos_2"}\n]\n');
    const error = await loadError(file);
    expect(error.issues).toEqual([
      { file, line: 3, column: 3, message: expect.stringMatching(/^invalid JSON: expected ','/) },
    ]);
  });

  it('a gold answer the parser cannot use, naming the record', async () => {
    const dir = tempDir();
    const file = join(dir, 'wikihow.jsonl');
    writeFileSync(
      file,
      [record('wikihow_1'), record('wikihow_2', 'I do not know.')].map((r) => JSON.stringify(r)).join('\n'),
    );
    const error = await loadError(file);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ file, line: 2, field: 'conversations[2].content' });
    expect(error.issues[0]!.message).toMatch(
      /^the gold answer of "wikihow_2" is not a usable workflow: no node list found/,
    );
  });

  it('a cyclic gold answer', async () => {
    const dir = tempDir();
    const file = join(dir, 'os.jsonl');
    writeFileSync(file, JSON.stringify(record('os_1', 'Node:\n1: a\n2: b\nEdge: (START,1) (1,2) (2,1) (2,END)')));
    expect((await loadError(file)).issues[0]!.message).toMatch(/"os_1".*cycle/);
  });

  it('the same id twice, across files', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.jsonl'), JSON.stringify(record('toolbench_7')));
    writeFileSync(
      join(dir, 'b.jsonl'),
      `${JSON.stringify(record('toolbench_8'))}\n${JSON.stringify(record('toolbench_7'))}`,
    );
    const error = await loadError(dir);
    expect(error.issues).toEqual([
      {
        file: join(dir, 'b.jsonl'),
        line: 2,
        column: expect.any(Number),
        field: 'id',
        message: `duplicate id "toolbench_7"; first at ${join(dir, 'a.jsonl')}:1`,
      },
    ]);
  });

  it('a missing path, an empty folder and a file without records', async () => {
    const dir = tempDir();
    const missing = join(dir, 'nope');
    await expect(loadGold(missing)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { file: missing },
      message: expect.stringMatching(/no such file/),
    });
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'README.md'), 'x');
    await expect(loadGold(empty)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/no \.json or \.jsonl files/),
    });
    const none = join(dir, 'none.json');
    writeFileSync(none, '[]');
    await expect(loadGold(none)).rejects.toMatchObject({ code: 'BAD_INPUT', message: 'no gold records' });
  });
});
