import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../src/errors.js';
import {
  asScript,
  candidateCode,
  codeRunnerResponse,
  createCodeRunnerAgent,
  findTests,
  runCandidate,
  sandboxArgs,
  splitTests,
  type CandidateReport,
} from '../../src/team/code-runner.js';
import { runTeam } from '../../src/team/run-team.js';
import type { PeerResponse, TeamQuery } from '../../src/team/team.js';
import { scriptedAgents } from './scripted-agents.js';

const ADD_TESTS = [
  'assert.equal(add(1, 2), 3);',
  'assert.strictEqual(add(-1, 1), 0);',
  "assert.deepStrictEqual([add(2, 2)], [4], 'two and two');",
].join('\n');
const CORRECT = 'function add(a, b) {\n  return a + b;\n}';
const WRONG = 'function add(a, b) {\n  return a - b;\n}';

describe('splitTests', () => {
  it('makes one test per statement, joins statements that span lines, and marks declarations as setup', () => {
    const source = [
      "import assert from 'node:assert';",
      '// the basics',
      'const r = add(2, 2);',
      'assert.equal(r, 4);',
      '',
      "test('many lines', () => {",
      '  assert.equal(add(1, 1), 2);',
      '});',
      'Promise.resolve(add(1, 2))',
      '  .then((v) => assert.equal(v, 3));',
    ].join('\n');
    expect(splitTests(source)).toStrictEqual([
      { source: 'const r = add(2, 2);', line: 3, counted: false },
      { source: 'assert.equal(r, 4);', line: 4, counted: true },
      { source: "test('many lines', () => {\n  assert.equal(add(1, 1), 2);\n});", line: 6, counted: true },
      { source: 'Promise.resolve(add(1, 2))\n  .then((v) => assert.equal(v, 3));', line: 9, counted: true },
    ]);
  });

  it('keeps a rest that never compiles as one test, so its syntax error shows as a failure', () => {
    expect(splitTests('assert.ok(true);\nassert.equal(add(1, 2), 3\n')).toStrictEqual([
      { source: 'assert.ok(true);', line: 1, counted: true },
      { source: 'assert.equal(add(1, 2), 3', line: 2, counted: true },
    ]);
  });
});

describe('findTests and candidateCode', () => {
  it('prefers query.tests, then a block marked as tests, then the last block using assert', () => {
    const question = 'Write add.\n```js\nfunction add(a, b) {}\n```\n```js\nassert.equal(add(1, 1), 2);\n```\n';
    expect(findTests({ question, tests: 'assert.ok(add)' })).toBe('assert.ok(add)');
    expect(findTests({ question })).toBe('assert.equal(add(1, 1), 2);\n');
    const marked = 'Write add.\n```js tests\nexpect(add(1, 1))\n```\n```js\nassert.equal(add(1, 1), 2);\n```\n';
    expect(findTests({ question: marked })).toBe('expect(add(1, 1))\n');
    expect(findTests({ question: 'Write add.' })).toBeUndefined();
  });

  it('takes the last fenced block of an answer, else a code answer itself, else a block in the text', () => {
    const peer = (answer: string, text = ''): PeerResponse => ({ agent: 'a', answer, text });
    expect(candidateCode(peer('```js\nold()\n```\n```js\nnew()\n```'), { kind: 'code' })).toBe('new()');
    expect(candidateCode(peer('  f()  '), { kind: 'code' }), 'a code answer is the code').toBe('f()');
    expect(candidateCode(peer('42', 'Here:\n```\ng()\n```'), { kind: 'exact' })).toBe('g()');
    expect(candidateCode(peer('42', 'no code'), { kind: 'exact' })).toBe('');
  });

  it('removes module syntax a model may add so the code runs as a script', () => {
    expect(
      asScript("import assert from 'assert';\nexport default function add() {}\nexport const k = 1;\nexport { add };"),
    ).toBe('function add() {}\nconst k = 1;');
  });
});

describe('runCandidate (sandboxed child process)', () => {
  it('passes a correct candidate and fails a wrong one test by test, with the reason', async () => {
    expect(await runCandidate(CORRECT, ADD_TESTS)).toStrictEqual({
      passed: 3,
      total: 3,
      timedOut: false,
      failures: [],
      notes: [],
    });
    expect(await runCandidate(WRONG, ADD_TESTS)).toStrictEqual({
      passed: 0,
      total: 3,
      timedOut: false,
      failures: [
        { test: 'assert.equal(add(1, 2), 3);', message: 'expected 3, got -1' },
        { test: 'assert.strictEqual(add(-1, 1), 0);', message: 'expected 0, got -2' },
        { test: "assert.deepStrictEqual([add(2, 2)], [4], 'two and two');", message: 'two and two' },
      ],
      notes: [],
    });
  });

  it('finds exports, module.exports, async tests and node:assert/strict through require', async () => {
    const tests =
      "const assert = require('node:assert/strict');\nassert.equal(double(2), 4);\ntest('async', async () => assert.equal(await Promise.resolve(double(3)), 6));\nassert.throws(() => double('x'), /number/);";
    const code =
      "module.exports = { double: (n) => { if (typeof n !== 'number') throw new TypeError('not a number'); return n * 2; } };";
    expect(await runCandidate(code, tests)).toMatchObject({ passed: 3, total: 3, failures: [] });
    expect(await runCandidate('export function double(n) { return `${n * 2}`; }', tests)).toMatchObject({
      passed: 0,
      total: 3,
    });
  });

  it('reports a syntax error with its line and does not run the code', async () => {
    const report = await runCandidate('function add(a, b) {\n  return a +;\n}', ADD_TESTS);
    expect(report).toStrictEqual({
      passed: 0,
      total: 3,
      timedOut: false,
      failures: [],
      notes: [],
      syntaxError: "Unexpected token ';' (line 2)",
    });
  });

  it('stops an infinite loop at the time limit; tests before it keep their results', async () => {
    const tests = 'assert.equal(add(1, 2), 3);\nassert.equal(spin(), 1);\nassert.equal(add(2, 2), 4);';
    // A limit that did not fire would hang the test until its own time-out.
    const report = await runCandidate(`${CORRECT}\nfunction spin() { for (;;) {} }`, tests, { timeoutMs: 400 });
    expect(report).toMatchObject({ passed: 1, total: 3, timedOut: true });
    expect(report.failures.map((f) => f.message)).toStrictEqual([
      'not run: the time limit (400 ms) was reached',
      'not run: the time limit (400 ms) was reached',
    ]);
    // A promise loop is stopped too.
    const promiseLoop = await runCandidate('async function add() { for (;;) await null; }', 'add()', {
      timeoutMs: 300,
    });
    expect(promiseLoop).toMatchObject({ passed: 0, total: 1, timedOut: true });
  });

  it('kills a process that outlives its limit outside any script (a looping getter)', async () => {
    const report = await runCandidate('function make() { return { get then() { for (;;) {} } }; }', 'make()', {
      timeoutMs: 200,
    });
    expect(report).toMatchObject({ passed: 0, total: 1, timedOut: true });
    expect(report.crashed).toBeUndefined();
  });

  it('blocks reading /etc/passwd, spawning processes, the network and escapes to the host realm', async () => {
    const tests = 'assert.equal(typeof attempt(), "string");';
    const attempts = [
      'function attempt() { return require("fs").readFileSync("/etc/passwd", "utf8"); }',
      'function attempt() { return String(require("child_process").execSync("id")); }',
      'function attempt() { return this.constructor.constructor("return process")().mainModule.require("fs").readFileSync("/etc/passwd", "utf8"); }',
      'function attempt() { return String(process.binding("fs")); }',
      'function attempt() { fetch("http://example.com"); return "sent"; }',
      'function attempt() { return eval("1 + 1") + ""; }',
    ];
    const reports = await Promise.all(attempts.map((code) => runCandidate(code, tests)));
    expect(reports.map((r) => r.failures[0]?.message)).toStrictEqual([
      'require("fs") is not available in the code runner: plain JavaScript and assert only',
      'require("child_process") is not available in the code runner: plain JavaScript and assert only',
      'EvalError: Code generation from strings disallowed for this context',
      'ReferenceError: process is not defined',
      'ReferenceError: fetch is not defined',
      'EvalError: Code generation from strings disallowed for this context',
    ]);
    expect(reports.every((r) => r.passed === 0)).toBe(true);
  });

  it('caps memory: a candidate that allocates without end crashes and is reported', async () => {
    const report = await runCandidate(
      'const hoard = []; for (;;) hoard.push(new Array(1e6).fill(1.5));',
      'assert.ok(true)',
      { memoryMb: 32, timeoutMs: 10_000 },
    );
    expect(report).toMatchObject({ passed: 0, total: 1, timedOut: false, crashed: 'ran out of memory (limit 32 MB)' });
  });

  it('only checks the syntax when there are no tests', async () => {
    expect(await runCandidate(CORRECT, undefined)).toStrictEqual({
      passed: 0,
      total: 0,
      timedOut: false,
      failures: [],
      notes: [],
    });
    expect((await runCandidate('function (', undefined)).syntaxError).toMatch(/\(line 1\)$/);
  });

  it('rejects with the abort error when aborted while running', async () => {
    const controller = new AbortController();
    const run = runCandidate('function spin() { for (;;) {} }', 'spin()', {
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    // The 10 s limit is longer than the test's time-out: only the abort can end the run in time.
    const error: unknown = await run.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isAbortError(error)).toBe(true);
  });
});

describe('the sandbox process itself (second layer)', () => {
  it('may read only its own folder, write nowhere and start no processes, even with full Node access', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'weft-sandbox-probe-')));
    try {
      const probe = `
const fs = require('fs');
const outcome = (f) => { try { f(); return 'allowed'; } catch (error) { return error.code || error.message; } };
process.stdout.write(JSON.stringify({
  own: outcome(() => fs.readFileSync(__filename)),
  passwd: outcome(() => fs.readFileSync('/etc/passwd')),
  write: outcome(() => fs.writeFileSync(__dirname + '/x.txt', 'x')),
  spawn: outcome(() => require('child_process').spawnSync('id')),
  worker: outcome(() => new (require('worker_threads').Worker)('0', { eval: true })),
  evalCode: outcome(() => eval('1')),
}));`;
      await writeFile(join(dir, 'probe.cjs'), probe);
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [...sandboxArgs(dir, 64), join(dir, 'probe.cjs')], { cwd: dir, env: {} });
        let out = '';
        child.stdout.on('data', (data: Buffer) => (out += data.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(out));
      });
      expect(JSON.parse(output)).toStrictEqual({
        own: 'allowed',
        passwd: 'ERR_ACCESS_DENIED',
        write: 'ERR_ACCESS_DENIED',
        spawn: 'ERR_ACCESS_DENIED',
        worker: 'ERR_ACCESS_DENIED',
        evalCode: 'Code generation from strings disallowed for this context',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('codeRunnerResponse (pure)', () => {
  const peers: PeerResponse[] = ['a', 'b', 'c', 'd'].map((agent) => ({ agent, answer: '', text: '' }));
  const report = (passed: number, total: number, extra: Partial<CandidateReport> = {}): CandidateReport => ({
    passed,
    total,
    timedOut: false,
    failures: [],
    notes: [],
    ...extra,
  });

  it('rates peers 1 + 4 × pass rate (1 for no code or a syntax error) and answers with the best code', () => {
    const response = codeRunnerResponse(
      peers,
      ['x', 'y', 'z', ''],
      [report(1, 4), report(4, 4), report(0, 4, { syntaxError: 'bad (line 1)' }), undefined],
      true,
    );
    expect(response).toMatchObject({
      answer: 'y',
      ratings: [2, 5, 1, 1],
      ratingsParsed: true,
      calls: 0,
      tests: { passed: 4, total: 4 },
    });
    expect(response.text).toBe(
      [
        'Ran 2 of 4 candidate(s) against 4 test(s) in a sandbox:',
        '- a: 1/4 tests passed',
        '- b: 4/4 tests passed',
        '- c: syntax error: bad (line 1)',
        '- d: no code found',
        'Best: the code of b (4/4 tests passed).',
      ].join('\n'),
    );
  });

  it('breaks a tie in tests by the largest group of agreeing code, then by the order shown', () => {
    const tied = codeRunnerResponse(
      peers,
      ['f(1)', 'g(2)', 'g(2)', 'h(3)'],
      [report(2, 3), report(2, 3), report(2, 3), report(1, 3)],
      true,
    );
    expect(tied.answer).toBe('g(2)');
    const none = codeRunnerResponse(
      peers,
      ['f(1)', 'g(2)', 'h(3)', 'k(4)'],
      [report(0, 0), report(0, 0), report(0, 0), report(0, 0)],
      false,
    );
    expect(none).toMatchObject({ answer: 'f(1)', ratings: [3, 3, 3, 3] });
    expect(none.tests).toBeUndefined();
  });

  it('answers nothing when no candidate can run', () => {
    const response = codeRunnerResponse(
      peers.slice(0, 2),
      ['', 'x'],
      [undefined, report(0, 2, { syntaxError: 'e' })],
      true,
    );
    expect(response).toMatchObject({ answer: '', ratings: [1, 1] });
    expect(response.text.endsWith('No candidate can be run.')).toBe(true);
  });
});

describe('createCodeRunnerAgent', () => {
  const query: TeamQuery = { question: 'Write add(a, b).', kind: 'code', tests: ADD_TESTS };

  it('has nothing to test at step 1 and makes no calls', async () => {
    const runner = createCodeRunnerAgent({ name: 'runner' });
    expect(runner.kind).toBe('tool');
    expect(await runner.respond({ query, step: 1, peers: [] })).toStrictEqual({
      answer: '',
      text: 'No candidate code to test yet.',
      ratings: [],
      ratingsParsed: true,
      calls: 0,
    });
  });

  it('tests the peers it is shown and answers with the code that passes', async () => {
    const runner = createCodeRunnerAgent({ name: 'runner' });
    const peers: PeerResponse[] = [
      { agent: 'wrong', answer: WRONG, text: 'subtracts' },
      { agent: 'right', answer: `\`\`\`js\n${CORRECT}\n\`\`\``, text: 'adds' },
      { agent: 'broken', answer: 'function add(', text: '' },
    ];
    const response = await runner.respond({ query, step: 2, peers });
    expect(response).toMatchObject({ answer: CORRECT, ratings: [1, 5, 1], calls: 0, tests: { passed: 3, total: 3 } });
    expect(response.text).toContain(
      '- wrong: 0/3 tests passed; first failure: `assert.equal(add(1, 2), 3);`: expected 3, got -1',
    );
  });

  it("decides a team's code answer by tests: the passing code wins over an equal vote for failing code", async () => {
    const coders = scriptedAgents({ right: [CORRECT, CORRECT, CORRECT], wrong: [WRONG, WRONG, WRONG] });
    const result = await runTeam({
      agents: [...coders, createCodeRunnerAgent({ name: 'runner' })],
      query,
      maxSteps: 3,
      reformAt: 0,
    });
    expect(result.answer).toBe(CORRECT);
    expect(
      result.layers.map((layer) =>
        layer.map((node) => [
          node.agent,
          node.answer === CORRECT ? 'right' : node.answer === WRONG ? 'wrong' : node.answer,
        ]),
      ),
    ).toStrictEqual([
      [
        ['right', 'right'],
        ['wrong', 'wrong'],
        ['runner', ''],
      ],
      [
        ['right', 'right'],
        ['wrong', 'wrong'],
        ['runner', 'right'],
      ],
      [
        ['right', 'right'],
        ['wrong', 'wrong'],
        ['runner', 'right'],
      ],
    ]);
    expect(result.layers[2]![2]!.tests).toStrictEqual({ passed: 3, total: 3 });
    expect(result.calls).toBe(6);
  });
});
