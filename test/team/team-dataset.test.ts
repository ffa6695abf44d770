import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError, formatError } from '../../src/errors.js';
import { parseTeamDataset, readTeamDataset, readTeamQueries, teamQueryOf } from '../../src/team/team-dataset.js';

function rejection(text: string, options: { requireAnswer?: boolean } = {}): WeftError {
  try {
    parseTeamDataset(text, 'mc.jsonl', options);
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected the dataset to be rejected');
}

describe('parseTeamDataset', () => {
  it('reads items with their lines, normalising choice letters and number answers', () => {
    const text = [
      '{"id": "q1", "question": "2 + 2?", "choices": ["3", "4"], "answer": "b", "subject": "maths"}',
      '',
      '{"id": 7, "question": "6 * 7?", "answer": 42}',
      '{"id": "c1", "question": "Write add.", "answer": "ok", "tests": "assert.equal(add(1, 2), 3)"}',
    ].join('\r\n');
    expect(parseTeamDataset(text, 'mc.jsonl')).toStrictEqual({
      items: [
        { id: 'q1', question: '2 + 2?', choices: ['3', '4'], answer: 'B', line: 1 },
        { id: '7', question: '6 * 7?', answer: '42', line: 3 },
        { id: 'c1', question: 'Write add.', answer: 'ok', tests: 'assert.equal(add(1, 2), 3)', line: 4 },
      ],
    });
  });

  it('rejects a line without an answer with a clear, located message', () => {
    const error = rejection('{"id": "q1", "question": "2 + 2?", "answer": "4"}\n{"id": "q2", "question": "3 + 3?"}\n');
    expect(error.code).toBe('BAD_INPUT');
    expect(formatError(error)).toBe(
      [
        'mc.jsonl: invalid dataset: 1 problem',
        '  - mc.jsonl:2:1 answer: a dataset line without an answer: add "answer" (the expected answer; a choice letter when there are choices)',
      ].join('\n'),
    );
  });

  it('lists every bad line: not JSON, missing id, bad choices, a letter beyond the choices, a duplicate id', () => {
    const lines = [
      '{"id": "q1", "question": "a?", "answer": "1"}',
      '{"id": "q2", "question": "b?", answer: "2"}',
      '{"question": "c?", "answer": "3"}',
      '{"id": "q4", "question": "d?", "choices": "A or B", "answer": "A"}',
      '{"id": "q5", "question": "e?", "choices": ["x", 2, ""], "answer": "A"}',
      '{"id": "q6", "question": "f?", "choices": ["x", "y", "z"], "answer": "D"}',
      '{"id": "q1", "question": "g?", "answer": "7"}',
      '[1, 2]',
      '{"id": "q9", "question": "", "answer": ["x"]}',
    ];
    const error = rejection(lines.join('\n'));
    expect(error.message).toBe('invalid dataset: 10 problems');
    expect(error.issues.map((issue) => [issue.line, issue.column, issue.field, issue.message])).toStrictEqual([
      [2, 32, undefined, 'invalid JSON: expected a double-quoted property name, unexpected character "a"'],
      [3, 1, 'id', 'missing "id"'],
      [4, 32, 'choices', '"choices" must be an array of strings, got a string'],
      [5, 49, 'choices[1]', '"choices" must be an array of strings; this one is a number'],
      [5, 52, 'choices[2]', 'empty choice'],
      [6, 60, 'answer', 'answer "D" is not a choice letter: expected one of A–C (the 3 choices)'],
      [7, 2, 'id', 'duplicate id "q1" (first on line 1)'],
      [8, 1, undefined, 'expected an object like {"id", "question", "answer"}, got an array'],
      [9, 14, 'question', '"question" is empty'],
      [9, 30, 'answer', '"answer" must be a string or a number, got an array'],
    ]);
    expect(error.issues.every((issue) => issue.file === 'mc.jsonl')).toBe(true);
  });

  it('lets sample queries leave out the answer, but still checks the rest', () => {
    expect(parseTeamDataset('{"id": "q1", "question": "a?"}', 'q.jsonl', { requireAnswer: false })).toStrictEqual({
      items: [{ id: 'q1', question: 'a?', line: 1 }],
    });
    expect(rejection('{"question": "a?"}', { requireAnswer: false }).message).toBe('invalid queries file: 1 problem');
  });

  it('rejects an empty file', () => {
    expect(rejection('\n\n').message).toBe('the dataset has no items');
  });
});

describe('teamQueryOf', () => {
  it('asks a choice question for items with choices and an exact one otherwise, unless the team sets the kind', () => {
    const mc = { id: 'q', question: 'a?', choices: ['x', 'y'], answer: 'A', line: 1 };
    expect(teamQueryOf(mc)).toStrictEqual({ question: 'a?', kind: 'choice', choices: ['x', 'y'] });
    expect(teamQueryOf({ id: 'r', question: 'b?', answer: '3', line: 2 }, undefined, 'math')).toStrictEqual({
      question: 'b?',
      kind: 'exact',
      taskType: 'math',
    });
    expect(teamQueryOf({ id: 'c', question: 'Write f.', answer: 'x', tests: 'f()', line: 3 }, 'code')).toStrictEqual({
      question: 'Write f.',
      kind: 'code',
      tests: 'f()',
    });
  });
});

describe('readTeamDataset / readTeamQueries', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-team-data-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('read files and name a missing one', async () => {
    const file = join(dir, 'd.jsonl');
    await writeFile(file, '{"id": "q1", "question": "a?", "answer": "1"}\n');
    expect((await readTeamDataset(file)).items).toStrictEqual([{ id: 'q1', question: 'a?', answer: '1', line: 1 }]);
    expect((await readTeamQueries(file)).items).toHaveLength(1);
    const missing = join(dir, 'none.jsonl');
    await expect(readTeamDataset(missing)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'cannot read the dataset: no such file',
      location: { file: missing },
    });
  });

  it('reads the shipped sample dataset and queries', async () => {
    const data = await readTeamDataset('examples/teams/mc-sample.jsonl');
    expect(data.items.length).toBeGreaterThanOrEqual(20);
    expect(data.items.some((item) => item.choices)).toBe(true);
    expect(data.items.some((item) => !item.choices)).toBe(true);
    const queries = await readTeamQueries('examples/teams/queries.jsonl');
    expect(queries.items.length).toBeGreaterThanOrEqual(5);
  });
});
