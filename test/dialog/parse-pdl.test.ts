/**
 * parsePdl and loadPdlFile: a PDL file read into a Pdl with every field filled, the variants found in the wild,
 * and every problem of its shape located (line, column, path); hostile and careless input refused with a reason.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Pdl, PdlProblem } from '../../src/dialog/pdl.js';
import { loadPdlFile, MAX_PDL_FILE_BYTES, parsePdl } from '../../src/dialog/parse-pdl.js';
import { WeftError } from '../../src/errors.js';

const FIXTURES = 'test/fixtures/pdl';
const scratch = mkdtempSync(join(tmpdir(), 'weft-pdl-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function parsed(text: string, file = 'p.pdl.yaml'): { pdl: Pdl; problems: PdlProblem[] } {
  const result = parsePdl(text, { file, baseDir: '/base' });
  if (!result.pdl) throw new Error(`no pdl: ${JSON.stringify(result.problems)}`);
  return { pdl: result.pdl, problems: result.problems };
}

/** Problems as `line:column path: message`, for exact comparisons. */
function lines(problems: readonly PdlProblem[]): string[] {
  return problems.map((p) => `${p.severity} ${p.line}:${p.column} ${p.path ?? ''}: ${p.message}`);
}

const MINIMAL = 'Name: N\nDesc: D\nProcedure: |\n  ANSWER.request_information()\n';

describe('parsePdl', () => {
  it('fills every field of a Pdl from a file, references located in the file', () => {
    const file = `${FIXTURES}/order-return.pdl.yaml`;
    const text = readFileSync(file, 'utf8');
    const { pdl, problems } = parsed(text, file);
    expect(problems).toEqual([]);
    expect(pdl.file).toBe(resolve(file));
    expect(pdl.name).toBe('Order return');
    expect(pdl.desc).toMatch(/^Help a customer/);
    expect(pdl.detailedDesc).toMatch(/^Find the customer by email, verify them .* is approved\.$/);
    expect(pdl.slots[1]).toEqual({
      name: 'postal_code',
      desc: "The postal code on the customer's account",
      type: 'string',
    });
    expect(pdl.apis.map((api) => api.name)).toEqual([
      'find_customer',
      'verify_customer',
      'get_order',
      'create_return',
      'approve_return',
      'issue_refund',
    ]);
    expect(pdl.apis[1]).toEqual({
      name: 'verify_customer',
      desc: 'Checks the postal code.',
      request: ['customer_id', 'postal_code'],
      response: ['verified'],
      precondition: ['find_customer'],
    });
    // The file lists request_information (without a desc): kept, with the built-in desc; the other one is added.
    expect(pdl.answers.map((answer) => [answer.name, answer.builtIn ?? false])).toEqual([
      ['not_delivered', false],
      ['refund_issued', false],
      ['request_information', false],
      ['answer_out_of_workflow_questions', true],
    ]);
    expect(pdl.answers[2]?.desc).not.toBe('');
    expect(pdl.answers[1]?.precondition).toEqual(['issue_refund']);
    expect(pdl.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(pdl.hasTools).toBe(false);
    expect(pdl.controllers).toEqual({});
    expect(pdl.procedure).toMatch(/^email = ANSWER\.request_information\('email'\)\n/);
    // Line 55: `  email = ANSWER.request_information('email')`; the comment line 57 names nothing.
    expect(pdl.references.slice(0, 3)).toEqual([
      { kind: 'answer', name: 'request_information', line: 55, column: 11, outputs: ['email'], inputs: [] },
      {
        kind: 'api',
        name: 'find_customer',
        line: 56,
        column: 29,
        outputs: ['customer_id', 'verified'],
        inputs: ['email'],
      },
      {
        kind: 'api',
        name: 'verify_customer',
        line: 58,
        column: 16,
        outputs: ['verified'],
        inputs: ['customer_id', 'postal_code'],
      },
    ]);
    expect(pdl.references.at(-2)).toMatchObject({
      name: 'issue_refund',
      line: 66,
      column: 33,
      inputs: ['return_id', 'method'],
    });
    expect(pdl.references.map((reference) => reference.name)).toEqual([
      'request_information',
      'find_customer',
      'verify_customer',
      'get_order',
      'not_delivered',
      'create_return',
      'approve_return',
      'issue_refund',
      'refund_issued',
    ]);
  });

  it('accepts the variants found in the wild', () => {
    const { pdl, problems } = parsed(readFileSync(`${FIXTURES}/wild.pdl.yaml`, 'utf8'));
    expect(problems).toEqual([]);
    expect(pdl.name).toBe('114');
    expect(pdl.procedure).toMatch(/^while not API_check_restaurant/);
    expect(pdl.apis).toEqual([
      { name: 'check_restaurant', request: ['restaurant'], response: ['restaurant_exists'], precondition: [] },
      {
        name: 'check_time',
        request: ['restaurant', 'time'],
        response: ['slots_free'],
        precondition: ['check_restaurant'],
      },
      {
        name: 'book_table',
        request: ['restaurant', 'time', 'party_size'],
        response: ['booking_id'],
        precondition: ['check_restaurant', 'check_time'],
      },
    ]);
    expect(pdl.slots).toEqual([
      { name: 'restaurant', desc: '' },
      { name: 'party_size', desc: 'How many people', type: 'int' },
      { name: 'time', desc: 'When' },
    ]);
    expect(pdl.answers.map((answer) => answer.name)).toEqual([
      'booked',
      'answer_out_of_workflow_questions',
      'request_information',
    ]);
    expect(pdl.answers[0]?.precondition).toEqual(['book_table']);
    expect(pdl.references).toEqual([
      { kind: 'api', name: 'check_restaurant', line: 5, column: 13, outputs: [], inputs: ['restaurant'] },
      { kind: 'answer', name: 'request_information', line: 6, column: 20, outputs: ['restaurant'], inputs: [] },
      // `time=when`: both identifiers.
      {
        kind: 'api',
        name: 'check_time',
        line: 7,
        column: 18,
        outputs: ['slots_free'],
        inputs: ['restaurant', 'time', 'when'],
      },
      // A bare call of a known API, as the paper's own examples write.
      {
        kind: 'api',
        name: 'book_table',
        line: 8,
        column: 13,
        outputs: ['booking'],
        inputs: ['restaurant', 'when', 'party_size'],
      },
      { kind: 'answer', name: 'booked', line: 9, column: 3, outputs: [], inputs: [] },
    ]);
  });

  it('locates references in quoted, folded and JSON procedures, after comments that mention the same call', () => {
    const quoted = parsed(
      'Name: N\nDesc: D\nProcedure: "x = 1\\n[a] = API.f(x)\\nANSWER.g()"\nAPIs: [f]\nANSWERs: [{ name: g, desc: G }]\n',
    );
    expect(quoted.problems).toEqual([]);
    expect(quoted.pdl.references.map((r) => [r.name, r.line, r.column, r.outputs])).toEqual([
      ['f', 3, 26, ['a']],
      ['g', 3, 36, []],
    ]);
    const commented = parsed(
      "Name: N\nDesc: D\nAPIs: [f]\nProcedure: |\n  # first call API.f(x) with what the user said\n  'API.f(y)' is a string\n  r = API.f(x)\n",
    );
    expect(commented.pdl.references).toEqual([
      { kind: 'api', name: 'f', line: 7, column: 7, outputs: ['r'], inputs: ['x'] },
    ]);
    const json = parsePdl(
      JSON.stringify({ Name: 'N', Desc: 'D', APIs: ['f'], Procedure: 'a = 1\n[b] = API.f(a)' }, null, 2),
      { file: 'p.pdl.json' },
    );
    expect(json.problems).toEqual([]);
    expect(json.pdl?.references).toEqual([
      { kind: 'api', name: 'f', line: 7, column: 30, outputs: ['b'], inputs: ['a'] },
    ]);
  });

  it('reads controllers: settings, shorthands, module paths against the file folder', () => {
    const { pdl, problems } = parsed(
      `${MINIMAL}controllers:\n  dependency: pre\n  repetition: 3\n  sessionLength: { maxTurns: 30 }\n  modules:\n    - ./strict.js\n    - { path: /abs/m.js, export: make, options: { level: 2 } }\n`,
    );
    expect(problems).toEqual([]);
    expect(pdl.controllers).toEqual({
      dependency: 'pre',
      repetition: { limit: 3 },
      sessionLength: { maxTurns: 30 },
      modules: [{ path: '/base/strict.js' }, { path: '/abs/m.js', export: 'make', options: { level: 2 } }],
    });
    expect(
      parsed(`${MINIMAL}controllers: { dependency: false, repetition: true, sessionLength: false }\n`).pdl.controllers,
    ).toEqual({
      dependency: false,
      repetition: true,
      sessionLength: false,
    });
  });

  it('locates every problem of controllers:', () => {
    const { problems } = parsed(
      `${MINIMAL}controllers:\n  dependency: sometimes\n  repetition: { limit: 0 }\n  sessionLength: { maxturns: 5 }\n  modules:\n    - { path: '' }\n    - 7\n  repetiton: true\n`,
    );
    expect(lines(problems)).toEqual([
      'error 12:3 controllers.repetiton: unknown key "repetiton" (did you mean "repetition"?); allowed: dependency, repetition, sessionLength, modules',
      'error 6:3 controllers.dependency: expected true, false, pre, post or both, got "sometimes"',
      'error 7:17 controllers.repetition.limit: expected a whole number from 1 to 1000, got 0',
      'error 8:20 controllers.sessionLength.maxturns: unknown key "maxturns" (did you mean "maxTurns"?); allowed: maxTurns',
      'error 10:9 controllers.modules[0].path: expected a path, got ""',
      'error 11:7 controllers.modules[1]: expected a module ({ path, export?, options? }), got a number',
    ]);
  });

  it('checks a tools: section with parseToolsSection, its problems located', () => {
    const ok = parsed(`${MINIMAL}tools:\n  - kind: module\n    path: ./t.mjs\n`);
    expect(ok.problems).toEqual([]);
    expect(ok.pdl.hasTools).toBe(true);
    const { problems } = parsed(
      `${MINIMAL}allowHosts: [127.0.0.1]\ntools:\n  - kind: http\n    name: get\n    description: Gets.\n    url: http://example.com/x\n    input: { type: object }\n  - kind: htp\n`,
    );
    expect(problems.map((p) => [p.line, p.column, p.path])).toEqual([
      [10, 5, 'tools[0].url'],
      [12, 5, 'tools[1].kind'],
    ]);
    expect(problems[0]?.message).toMatch(/example\.com/);
    expect(problems[1]?.message).toMatch(/did you mean "http"/);
  });

  it('reports problems of shape, each located, all at once', () => {
    const text = [
      'Desc: 12', // 1
      'Procedure: |', // 2
      '  API.f()', // 3
      'PDL: x', // 4
      'SLOTS: []', // 5
      'APIs:', // 6
      '  - name: f', // 7
      '    pre: [g]', // 8
      '    precondition: g', // 9
      '    request: [a, a, 3]', // 10
      '  - name: 2fast', // 11
      '  - desc: no name', // 12
      '  - [x]', // 13
      '  - name: g', // 14
      '    response: {a: 1}', // 15
      'ANSWERs: none', // 16
      'Name: [x]', // 17
    ].join('\n');
    const { pdl, problems } = parsed(text);
    expect(lines(problems)).toEqual([
      'error 5:1 SLOTS: unknown key "SLOTS" (did you mean "SLOTs"?); allowed: Name, Desc, Detailed_desc, SLOTs, APIs, ANSWERs, Procedure, controllers, tools, allowHosts',
      'error 17:1 Name: expected text, got an array',
      'error 11:5 APIs[1].name: "2fast" is not a name: letters, digits, _ and spaces (each run of spaces is called as one _), not starting with a digit (e.g. _2fast)',
      'error 12:5 APIs[2].name: missing required field "name"',
      'error 13:5 APIs[3]: expected an API (a map with "name"), got an array',
      'warning 10:18 APIs[0].request[1]: lists "a" twice',
      'error 10:21 APIs[0].request[2]: expected a name, got a number',
      'error 8:5 APIs[0].pre: both "precondition" and "pre" are given; keep one',
      'error 15:5 APIs[4].response: expected a list of names (or "a, b"), got an object',
      'error 16:1 ANSWERs: expected a list of answers (each with "name"), got a string',
      'error 4:1 PDL: both "Procedure" and "PDL" give the procedure; keep one',
    ]);
    // Still a Pdl, for checkPdl to find more.
    expect(pdl.apis.map((api) => [api.name, api.request, api.precondition])).toEqual([
      ['f', ['a'], ['g']],
      ['g', [], []],
    ]);
    expect(pdl.desc).toBe('12');
  });

  it('requires Name and the procedure, and warns about a missing Desc', () => {
    expect(lines(parsed('APIs: []\n').problems)).toEqual([
      'error 1:1 Name: missing required field "Name"',
      'warning 1:1 : no "Desc": the bot is told what the procedure is for by it',
      'error 1:1 Procedure: missing required field "Procedure"',
    ]);
    expect(lines(parsed('Name: " "\nDesc: D\nProcedure: 5\n').problems)).toEqual([
      'error 1:1 Name: must not be empty',
      'error 3:1 Procedure: expected text, got a number',
    ]);
  });

  it('refuses what is not a PDL document: syntax errors, another shape, NUL bytes, binary junk, too big, too deep', () => {
    expect(lines(parsePdl('Name: [unclosed\n', { file: 'p.yaml' }).problems)[0]).toMatch(/^error 2:1 : invalid YAML/);
    expect(parsePdl('- a\n- b\n').problems).toEqual([
      {
        severity: 'error',
        line: 1,
        column: 1,
        message: 'a PDL file is a map with Name, Desc, SLOTs, APIs, ANSWERs and Procedure; got an array',
      },
    ]);
    expect(parsePdl('Name: x\n\u0000\u0001\u0002', { file: 'f' }).problems).toEqual([
      { severity: 'error', file: 'f', line: 2, column: 1, message: 'is not a text file (it holds NUL bytes)' },
    ]);
    // Junk without NUL bytes: some located problem, never a throw.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 20; round++) {
      const junk = Array.from({ length: 2000 }, () => String.fromCharCode(1 + (random() % 0x2ff))).join('');
      const result = parsePdl(junk, { file: 'junk' });
      expect(result.problems.some((p) => p.severity === 'error')).toBe(true);
    }
    const big = `Name: N\nDesc: ${'x'.repeat(MAX_PDL_FILE_BYTES)}\n`;
    expect(parsePdl(big).problems[0]?.message).toBe(
      `is ${MAX_PDL_FILE_BYTES + 15} bytes; at most ${MAX_PDL_FILE_BYTES}`,
    );
    const deep = `Name: N\nDesc: D\nAPIs: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    expect(lines(parsePdl(deep).problems)).toEqual([
      `error 3:${6 + 100} : invalid YAML: nested deeper than 100 levels`,
    ]);
  });

  it('parses a file just under 2 MB with a long procedure of thousands of calls', () => {
    const procedure = Array.from({ length: 3000 }, (_, i) => `  [r${i}] = API.f${i % 50}(a${i}, b)\n`).join('');
    const apis = Array.from({ length: 50 }, (_, i) => `  - { name: f${i}, request: [b], response: [r] }\n`).join('');
    const padding = '#'.repeat(MAX_PDL_FILE_BYTES - 200_000);
    const text = `Name: N\nDesc: D\n${padding}\nSLOTs: [b]\nAPIs:\n${apis}Procedure: |\n${procedure}`;
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_PDL_FILE_BYTES);
    const { pdl, problems } = parsed(text);
    expect(problems).toEqual([]);
    expect(pdl.references).toHaveLength(3000);
    expect(pdl.references[2999]).toMatchObject({ name: 'f49', line: 56 + 3000, column: 13 });
  });

  it('refuses a map of too many keys before composing it, and counts unknown keys past 20', () => {
    // 2 MB of keys: yaml's duplicate check would take minutes.
    const keys = Array.from({ length: 150_000 }, (_, i) => `k${i}: 1`).join('\n');
    expect(lines(parsePdl(`Name: N\n${keys}\n`).problems)).toEqual([
      'error 1:1 : a map with 150001 keys; at most 1000',
    ]);
    const flow = `Name: N\nDesc: D\nProcedure: x\nAPIs: [{ ${Array.from({ length: 1001 }, (_, i) => `k${i}`).join(', ')} }]\n`;
    expect(lines(parsePdl(flow).problems)).toEqual(['error 4:8 : a map with 1001 keys; at most 1000']);
    const unknown = parsed(`${MINIMAL}${Array.from({ length: 25 }, (_, i) => `extra${i}: 1`).join('\n')}\n`);
    expect(unknown.problems).toHaveLength(21);
    expect(lines(unknown.problems).at(-1)).toBe('error 1:1 : and 5 more unknown keys');
  });

  it('refuses a procedure longer than its limit, and too many entries', () => {
    const long = parsed(`Name: N\nDesc: D\nProcedure: |\n${`  ANSWER.x()\n`.repeat(10_000)}`);
    expect(lines(long.problems)).toEqual(['error 3:1 Procedure: is 110000 characters long; at most 100000']);
    expect(long.pdl.references).toEqual([]);
    const many = parsed(`${MINIMAL}SLOTs: [${Array.from({ length: 501 }, (_, i) => `s${i}`).join(', ')}]\n`);
    expect(lines(many.problems)).toEqual(['error 5:1 SLOTs: lists 501 slots; at most 500']);
  });

  it('counts columns after a byte-order mark as editors do', () => {
    const { pdl } = parsed(`\uFEFF${MINIMAL}`);
    expect(pdl.references[0]).toMatchObject({ line: 4, column: 3 });
  });
});

describe('loadPdlFile', () => {
  it('loads a file with warnings only', async () => {
    const pdl = await loadPdlFile(`${FIXTURES}/warnings-only.pdl.yaml`);
    expect(pdl.apis[1]?.precondition).toEqual(['block_card']);
    expect(pdl.answers[0]?.precondition).toEqual(['order_card']);
  });

  it('refuses a file with errors: BAD_INPUT listing every error, located, warnings left out', async () => {
    const error = await loadPdlFile(`${FIXTURES}/broken.pdl.yaml`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WeftError);
    const weft = error as WeftError;
    expect(weft.code).toBe('BAD_INPUT');
    expect(weft.message).toBe('invalid PDL file: 11 problems');
    expect(weft.issues[0]).toEqual({
      file: `${FIXTURES}/broken.pdl.yaml`,
      line: 3,
      column: 1,
      field: 'Descrption',
      message: expect.stringMatching(/^unknown key "Descrption" \(did you mean "Desc"\?\)/),
    });
    expect(weft.issues.map((issue) => issue.line)).toEqual([3, 7, 16, 19, 22, 25, 26, 30, 33, 34, 35]);
    // One problem is said once, with its place.
    const one = join(scratch, 'one.pdl.yaml');
    writeFileSync(one, 'Name: N\nDesc: D\nProcedure: API.nope()\n');
    await expect(loadPdlFile(one)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'unknown API "nope"',
      location: { file: one, line: 3, column: 12, field: 'Procedure' },
      issues: [],
    });
  });

  it('refuses folders, pipes, missing files and files over 2 MB, unread', async () => {
    const folder = join(scratch, 'folder.pdl.yaml');
    mkdirSync(folder);
    await expect(loadPdlFile(folder)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'cannot read the PDL file: it is a folder',
    });
    const fifo = join(scratch, 'fifo.pdl.yaml');
    execFileSync('mkfifo', [fifo]);
    await expect(loadPdlFile(fifo)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'cannot read the PDL file: it is not a regular file',
    });
    await expect(loadPdlFile(join(scratch, 'none.pdl.yaml'))).rejects.toMatchObject({
      message: 'cannot read the PDL file: no such file',
    });
    const big = join(scratch, 'big.pdl.yaml');
    writeFileSync(big, Buffer.alloc(MAX_PDL_FILE_BYTES + 1, 0x20));
    await expect(loadPdlFile(big)).rejects.toMatchObject({
      message: `the PDL file is ${MAX_PDL_FILE_BYTES + 1} bytes; at most ${MAX_PDL_FILE_BYTES}`,
    });
  });
});
