import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatError } from '../../src/errors.js';
import { MAX_JSONL_LINE_BYTES } from '../../src/dialog/load-jsonl-records.js';
import { checkProfileApis, loadProfiles, parseProfiles } from '../../src/dialog/profiles.js';
import type { Pdl } from '../../src/dialog/pdl.js';
import { thrownError } from './thrown-error.js';

const good = {
  id: 'p1',
  persona: 'A retired teacher who shops online twice a year.',
  details: { order_id: 'A-1001', email: 'ana@example.com' },
  needs: ['return the kettle'],
  style: 'polite, brief',
  pattern: 'answers one question at a time',
  required_apis: ['check_order', 'create_return'],
  goals: ['get a return label', { goal: 'get a refund', apis: ['create_return'] }],
};

describe('parseProfiles', () => {
  it('reads profiles with their lines, defaults for the optional fields, whole-number ids as strings', () => {
    const text = [JSON.stringify(good), '', JSON.stringify({ id: 7, persona: 'x', goals: ['g'] })].join('\r\n');
    expect(parseProfiles(text, 'p.jsonl')).toStrictEqual([
      {
        id: 'p1',
        persona: good.persona,
        details: good.details,
        needs: good.needs,
        style: good.style,
        pattern: good.pattern,
        requiredApis: good.required_apis,
        goals: [{ goal: 'get a return label' }, { goal: 'get a refund', apis: ['create_return'] }],
        index: 0,
        format: 'weft',
        line: 1,
      },
      {
        id: '7',
        persona: 'x',
        details: {},
        needs: [],
        style: '',
        pattern: '',
        goals: [{ goal: 'g' }],
        index: 1,
        format: 'weft',
        line: 3,
      },
    ]);
  });

  it('reports every bad line at once, with line, column and field, and did-you-mean for unknown keys', () => {
    const lines = [
      JSON.stringify(good),
      '{"id": "p2", "persona": "x", "goals": ["g"], "require_apis": ["a"]}',
      '{"id": "p3", "goals": []}',
      '{"id": "p1", "persona": "dup", "goals": ["g"]}',
      '{"id": "p4", "persona": "x", "goals": [{"goal": "g", "api": ["a"]}, 3], "needs": "one"}',
      '{"id": "p5", "persona": "x", "goals": ["g"],',
      '[1, 2]',
    ];
    const error = thrownError(() => parseProfiles(lines.join('\n'), 'p.jsonl'));
    expect(error.code).toBe('BAD_INPUT');
    expect(formatError(error)).toBe(
      [
        'p.jsonl: invalid profiles file: 9 problems',
        '  - p.jsonl:2:46 require_apis: unknown field "require_apis" (did you mean "required_apis"?); allowed fields: id, persona, details, needs, style, pattern, required_apis, goals',
        '  - p.jsonl:3:1 persona: missing "persona"',
        '  - p.jsonl:3:14 goals: "goals" is empty: list at least one goal',
        '  - p.jsonl:4:2 id: duplicate id "p1" (first on line 1)',
        '  - p.jsonl:5:73 needs: "needs" must be an array of strings, got a string',
        '  - p.jsonl:5:54 goals[0].api: unknown field "api" (did you mean "apis"?); allowed fields: goal, apis',
        '  - p.jsonl:5:69 goals[1]: a goal is a string or an object {goal, apis?}',
        '  - p.jsonl:6:45: invalid JSON: expected a double-quoted property name, unexpected end of input',
        '  - p.jsonl:7:1: expected an object, got an array',
      ].join('\n'),
    );
  });

  it('refuses binary junk, an over-long line and deep nesting without hanging', () => {
    expect(formatError(thrownError(() => parseProfiles('\u0000\u0001\u0002PNG', 'p.jsonl')))).toContain(
      'holds binary data',
    );
    const long = JSON.stringify({ ...good, persona: 'x'.repeat(MAX_JSONL_LINE_BYTES) });
    expect(formatError(thrownError(() => parseProfiles(long, 'p.jsonl')))).toContain(
      `p.jsonl:1: the line is longer than ${MAX_JSONL_LINE_BYTES} bytes`,
    );
    const deep = `{"id": "d", "persona": "x", "goals": ["g"], "details": {"a": ${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    expect(formatError(thrownError(() => parseProfiles(deep, 'p.jsonl')))).toContain(
      'p.jsonl:1: nested deeper than 100 levels',
    );
  });

  it('refuses an empty file', () => {
    expect(formatError(thrownError(() => parseProfiles('\n\n', 'p.jsonl')))).toBe(
      'p.jsonl: the profiles file has no records',
    );
  });
});

describe('loadProfiles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-profiles-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file and names a missing one or a folder', async () => {
    const file = join(dir, 'p.jsonl');
    await writeFile(file, `${JSON.stringify(good)}\n`);
    expect((await loadProfiles(file)).map((profile) => profile.id)).toEqual(['p1']);
    await expect(loadProfiles(join(dir, 'none.jsonl'))).rejects.toThrow('cannot read the profiles file: no such file');
    await expect(loadProfiles(dir)).rejects.toThrow('cannot read the profiles file: it is a folder');
  });

  it('refuses a named pipe, a device and a symlink loop without hanging; reads CRLF, a BOM, blank lines, no final newline', async () => {
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    await expect(loadProfiles(fifo)).rejects.toThrow('cannot read the profiles file: it is not a regular file');
    await expect(loadProfiles('/dev/zero')).rejects.toThrow('it is not a regular file');
    await symlink(join(dir, 'loop-b'), join(dir, 'loop-a'));
    await symlink(join(dir, 'loop-a'), join(dir, 'loop-b'));
    await expect(loadProfiles(join(dir, 'loop-a'))).rejects.toThrow(/cannot read the profiles file: .*ELOOP/);
    const windows = join(dir, 'windows.jsonl');
    const lines = [good, { ...good, id: 'p2' }].map((profile) => JSON.stringify(profile));
    await writeFile(windows, `\uFEFF${lines[0]}\r\n\r\n   \r\n${lines[1]}`);
    expect((await loadProfiles(windows)).map((profile) => [profile.id, profile.line])).toEqual([
      ['p1', 1],
      ['p2', 4],
    ]);
  });
});

describe('checkProfileApis', () => {
  const pdl: Pick<Pdl, 'apis'> = {
    apis: [
      { name: 'check_order', request: [], response: [], precondition: [] },
      { name: 'create_return', request: [], response: [], precondition: ['check_order'] },
    ],
  };

  it('accepts names of the procedure and locates the others with a guess', () => {
    const profiles = parseProfiles(
      [
        JSON.stringify(good),
        JSON.stringify({ ...good, id: 'p2', required_apis: ['check_ordr'], goals: [{ goal: 'g', apis: ['refund'] }] }),
      ].join('\n'),
      'p.jsonl',
    );
    const error = thrownError(() => checkProfileApis(profiles, pdl, 'p.jsonl'));
    expect(formatError(error)).toBe(
      [
        'p.jsonl: the profiles name 2 APIs the procedure does not have',
        '  - p.jsonl:2 required_apis[0]: unknown API "check_ordr" (did you mean "check_order"?); the procedure has: check_order, create_return',
        '  - p.jsonl:2 goals[0].apis[0]: unknown API "refund"; the procedure has: check_order, create_return',
      ].join('\n'),
    );
    expect(() => checkProfileApis(profiles.slice(0, 1), pdl, 'p.jsonl')).not.toThrow();
  });
});
