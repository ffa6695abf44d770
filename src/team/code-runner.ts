/**
 * The code-runner tool agent (docs/algorithms.md#temporal-feed-forward-network and #early-stopping): at each step it
 * takes the peers' code (JavaScript), runs every candidate against the query's tests in a sandboxed child process,
 * answers with the best-tested code, and rates each peer by its pass rate. It makes no model calls.
 *
 * Tests: `query.tests`, else a fenced block of the question whose info string says `test` (```js tests), else
 * the question's last fenced block that uses `assert`. A test is one statement (it may span lines, e.g. a
 * `test('…', () => { … })` call); statements that only declare (`const`, `function`, …) are setup, not counted.
 * The tests see the candidate's top-level functions and `module.exports`, an `assert` like node:assert's common
 * part, `require('assert')`, and `test(name, fn)`. Nothing else: no require of other modules, timers or I/O.
 *
 * Sandbox, three layers, because Node 20's permission model does not cover the network:
 * 1. A fresh `vm` context built on a null-prototype object (no host objects reachable), with code generation
 *    from strings and WebAssembly off: no `require`, `process`, `fetch`, timers or `eval`.
 * 2. The process runs with the permission model (`--experimental-permission`, `--permission` on newer Node):
 *    it may read only its temp dir, write nowhere, start no child processes or workers, load no addons, and
 *    generates no code from strings (`--disallow-code-generation-from-strings`); it gets an empty environment.
 * 3. The harness replaces the network functions of net, tls, http(s), http2, dgram, dns and `fetch` before any
 *    candidate code runs.
 * Limits: a time limit per candidate (default 5 s; `vm` timeouts stop loops, including promise loops, and the
 * parent kills the process when it outlives the limit by a second), and `--max-old-space-size` (default 128 MB).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { Script } from 'node:vm';
import { createLimiter } from '../llm/concurrency.js';
import { abortErrorOf } from '../llm/timeout.js';
import { largestAgreeingGroup } from './majority-answer.js';
import type { AgentResponse, PeerResponse, TeamAgent, TeamQuery } from './team.js';

export interface SandboxLimits {
  /** Wall time for one candidate's whole test run, in ms. Default 5000. */
  readonly timeoutMs?: number;
  /** V8 heap limit of the child process, in MB. Default 128. */
  readonly memoryMb?: number;
}

export interface CodeRunnerOptions extends SandboxLimits {
  readonly name: string;
  /** Candidates tested at once. Default 4. */
  readonly concurrency?: number;
}

export const CODE_RUNNER_DEFAULTS = Object.freeze({ timeoutMs: 5000, memoryMb: 128, concurrency: 4 });

/** Extra time the parent allows for process start-up before it kills a child that outlived its limit. */
const KILL_GRACE_MS = 1000;
const MAX_OUTPUT_BYTES = 1 << 20;
/** Results of (tests, code) pairs kept per agent: a candidate unchanged from the previous step is not run again. */
const CACHE_SIZE = 128;

export interface TestFailure {
  /** The test's first line. */
  readonly test: string;
  readonly message: string;
}

export interface CandidateReport {
  /** Counted tests that passed. */
  readonly passed: number;
  /** Counted tests in the suite (0 when there are none). */
  readonly total: number;
  /** `Unexpected token ')' (line 3)`: the code was not run. */
  readonly syntaxError?: string;
  /** The candidate threw while its top level ran; its tests still ran. */
  readonly loadError?: string;
  /** The time limit stopped the run; tests not reached count as failed. */
  readonly timedOut: boolean;
  /** The process died (out of memory, killed): why. */
  readonly crashed?: string;
  readonly failures: readonly TestFailure[];
  /** Setup statements of the tests that threw (they are not counted but explain later failures). */
  readonly notes: readonly string[];
}

/** One statement of a test suite. */
export interface TestCase {
  readonly source: string;
  /** 1-based line in the suite where it starts. */
  readonly line: number;
  /** False for setup (declarations), which runs but is not a test. */
  readonly counted: boolean;
}

export function createCodeRunnerAgent(options: CodeRunnerOptions): TeamAgent {
  const { name } = options;
  const limits: SandboxLimits = {
    timeoutMs: options.timeoutMs ?? CODE_RUNNER_DEFAULTS.timeoutMs,
    memoryMb: options.memoryMb ?? CODE_RUNNER_DEFAULTS.memoryMb,
  };
  const limiter = createLimiter(options.concurrency ?? CODE_RUNNER_DEFAULTS.concurrency);
  const cache = new Map<string, Promise<CandidateReport>>();

  const test = (code: string, tests: string | undefined, signal: AbortSignal | undefined): Promise<CandidateReport> => {
    const key = JSON.stringify([tests ?? null, code]);
    const cached = cache.get(key);
    if (cached) return cached;
    const pending = limiter.run(() => runCandidate(code, tests, { ...limits, ...(signal ? { signal } : {}) }), signal);
    cache.set(key, pending);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    // A failed or aborted run is not a result: the next step tries again.
    pending.catch(() => cache.delete(key));
    return pending;
  };

  return {
    name,
    kind: 'tool',
    async respond(input, signal) {
      if (input.peers.length === 0) {
        return { answer: '', text: 'No candidate code to test yet.', ratings: [], ratingsParsed: true, calls: 0 };
      }
      const tests = findTests(input.query);
      const codes = input.peers.map((peer) => candidateCode(peer, input.query));
      const reports = await Promise.all(codes.map((code) => (code === '' ? undefined : test(code, tests, signal))));
      return codeRunnerResponse(input.peers, codes, reports, tests !== undefined);
    },
  };
}

/**
 * The runner's response from the test reports of its peers' code (undefined: no code found). Pure.
 * The best candidate has the most tests passed (without tests: any code that compiles); ties go to the largest
 * group of identical-enough code, then to the peer shown first.
 */
export function codeRunnerResponse(
  peers: readonly PeerResponse[],
  codes: readonly string[],
  reports: readonly (CandidateReport | undefined)[],
  hasTests: boolean,
): AgentResponse {
  const runnable = reports.flatMap((report, index) => (report && report.syntaxError === undefined ? [index] : []));
  const bestPassed = Math.max(0, ...runnable.map((index) => reports[index]!.passed));
  const tied = runnable.filter((index) => reports[index]!.passed === bestPassed);
  const group = largestAgreeingGroup(
    tied.map((index) => codes[index]!),
    'code',
  );
  const best = group.length > 0 ? tied[group[0]!] : undefined;
  const bestReport = best === undefined ? undefined : reports[best];
  const total = reports.find((report) => report !== undefined)?.total ?? 0;

  const lines = [
    hasTests
      ? `Ran ${runnable.length} of ${peers.length} candidate(s) against ${total} test(s) in a sandbox:`
      : `No tests were given; checked ${peers.length} candidate(s) for syntax only:`,
    ...peers.map((peer, index) => `- ${peer.agent}: ${describeReport(reports[index], hasTests)}`),
    best === undefined
      ? 'No candidate can be run.'
      : `Best: the code of ${peers[best]!.agent}${hasTests ? ` (${bestPassed}/${total} tests passed)` : ''}.`,
  ];
  return {
    answer: best === undefined ? '' : codes[best]!,
    text: lines.join('\n'),
    ratings: reports.map((report) => ratingOf(report, hasTests)),
    ratingsParsed: true,
    calls: 0,
    ...(hasTests && bestReport ? { tests: { passed: bestReport.passed, total: bestReport.total } } : {}),
  };
}

/** 1 for no code or a syntax error; else 1 + 4 × pass rate, rounded; 3 when there are no tests to pass. */
export function ratingOf(report: CandidateReport | undefined, hasTests: boolean): number {
  if (!report || report.syntaxError !== undefined) return 1;
  if (!hasTests || report.total === 0) return 3;
  return 1 + Math.round((4 * report.passed) / report.total);
}

function describeReport(report: CandidateReport | undefined, hasTests: boolean): string {
  if (!report) return 'no code found';
  if (report.syntaxError !== undefined) return `syntax error: ${report.syntaxError}`;
  if (!hasTests) return 'compiles';
  const parts = [`${report.passed}/${report.total} tests passed`];
  if (report.timedOut) parts.push('stopped by the time limit');
  if (report.crashed) parts.push(report.crashed);
  if (report.loadError) parts.push(`its top level threw: ${report.loadError}`);
  const first = report.failures[0];
  if (first) parts.push(`first failure: \`${first.test}\`: ${first.message}`);
  return parts.join('; ');
}

/** The code a peer proposes: the last fenced block of its answer, else (for `code`) the answer itself, else the last fenced block of its text. */
export function candidateCode(peer: PeerResponse, query: Pick<TeamQuery, 'kind'>): string {
  const fenced = lastFence(peer.answer);
  if (fenced !== undefined) return fenced;
  if (query.kind === 'code' && peer.answer.trim() !== '') return peer.answer.trim();
  return lastFence(peer.text) ?? '';
}

function lastFence(text: string): string | undefined {
  const fences = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)];
  const body = fences.at(-1)?.[1]?.trim();
  return body === undefined || body === '' ? undefined : body;
}

/** The tests for a query: `tests`, a fenced block marked as tests, or the last fenced block using `assert`. */
export function findTests(query: Pick<TeamQuery, 'question' | 'tests'>): string | undefined {
  if (query.tests !== undefined && query.tests.trim() !== '') return query.tests;
  const fences = [...query.question.matchAll(/```([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({
    info: m[1]!.trim(),
    body: m[2]!,
  }));
  const marked = fences.filter((fence) => /\btests?\b/i.test(fence.info)).at(-1);
  if (marked && marked.body.trim() !== '') return marked.body;
  return fences.filter((fence) => /\bassert\b/.test(fence.body)).at(-1)?.body;
}

const ASSERT_IMPORT =
  /^\s*import\s+(?:\*\s+as\s+\w+|\w+|\{[^}]*\})\s+from\s+['"](?:node:)?assert(?:\/strict)?['"]\s*;?\s*$/;
const CONTINUATION = /^\s*(?:[.?:)\]},*]|&&|\|\||\+|=>)/;
const DECLARATION = /^\s*(?:const|let|var|function|class|async\s+function)\b/;

/**
 * Splits a suite into statements: lines are joined until they compile (so a statement may span lines) and the
 * next line does not continue it (`.then(…)`). Blank lines, comment lines and imports of `assert` (which is
 * provided) are skipped. A rest that never compiles is one test, which then fails with its syntax error.
 */
export function splitTests(source: string): TestCase[] {
  const lines = source.split(/\r?\n/);
  const cases: TestCase[] = [];
  let start = -1;
  let chunk: string[] = [];
  const flush = (): void => {
    const text = chunk.join('\n').trim();
    if (text !== '' && stripComments(text).trim() !== '')
      cases.push({ source: text, line: start + 1, counted: !DECLARATION.test(text) });
    chunk = [];
    start = -1;
  };
  lines.forEach((line, index) => {
    if (chunk.length === 0 && (line.trim() === '' || /^\s*\/\//.test(line) || ASSERT_IMPORT.test(line))) return;
    if (start < 0) start = index;
    chunk.push(line);
    const next = lines.slice(index + 1).find((l) => l.trim() !== '');
    if ((next === undefined || !CONTINUATION.test(next)) && compiles(chunk.join('\n'))) flush();
  });
  flush();
  return cases;
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function compiles(source: string): boolean {
  return syntaxErrorOf(source) === undefined;
}

/** `Unexpected token ')' (line 3)` when the code does not parse as a script; compiling runs nothing. */
export function syntaxErrorOf(code: string): string | undefined {
  try {
    new Script(code, { filename: 'candidate.js' });
    return undefined;
  } catch (error) {
    const line = /candidate\.js:(\d+)/.exec(String((error as Error).stack))?.[1];
    return `${(error as Error).message}${line ? ` (line ${line})` : ''}`;
  }
}

/**
 * ES module syntax a model may add to a plain function (`export function f`, `export default class`,
 * `import assert from 'assert'`), removed so the code runs as a script.
 */
export function asScript(code: string): string {
  return code
    .split('\n')
    .filter((line) => !ASSERT_IMPORT.test(line) && !/^\s*export\s*\{[^}]*\}\s*;?\s*$/.test(line))
    .map((line) =>
      line.replace(/^(\s*)export\s+(?:default\s+)?(?=(?:async\s+)?function\b|class\b|const\b|let\b|var\b)/, '$1'),
    )
    .join('\n');
}

/** Runs one candidate against a suite in the sandbox. Without counted tests it only checks the syntax. */
export async function runCandidate(
  code: string,
  tests: string | undefined,
  options: SandboxLimits & { readonly signal?: AbortSignal } = {},
): Promise<CandidateReport> {
  const { signal } = options;
  if (signal?.aborted) throw abortErrorOf(signal);
  const cases = tests === undefined ? [] : splitTests(tests);
  const counted = cases.filter((c) => c.counted).length;
  const script = asScript(code);
  const syntaxError = syntaxErrorOf(script);
  const base = { passed: 0, total: counted, timedOut: false, failures: [], notes: [] };
  if (syntaxError !== undefined) return { ...base, syntaxError };
  if (counted === 0) return base;

  const timeoutMs = options.timeoutMs ?? CODE_RUNNER_DEFAULTS.timeoutMs;
  const memoryMb = options.memoryMb ?? CODE_RUNNER_DEFAULTS.memoryMb;
  // realpath: the permission model compares resolved paths (on macOS /tmp is a link to /private/tmp).
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'weft-code-runner-')));
  try {
    await writeFile(join(dir, 'harness.cjs'), HARNESS);
    await writeFile(
      join(dir, 'payload.json'),
      JSON.stringify({ code: script, tests: cases.map((c) => c.source), timeoutMs }),
    );
    const outcome = await runHarness(dir, timeoutMs, memoryMb, signal);
    return reportOf(cases, outcome, memoryMb, timeoutMs);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type HarnessMessage =
  | { t: 'load'; message: string }
  | { t: 'load-timeout' }
  | { t: 'test'; i: number; ok: boolean; message?: string }
  | { t: 'timeout'; i: number }
  | { t: 'done' };

interface HarnessOutcome {
  readonly messages: HarnessMessage[];
  readonly killed: boolean;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** `--permission` is the flag's name from Node 22.13 / 23.5 on; 20 and older 22s only know the experimental one. */
function permissionFlag(): string {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13)
    ? '--permission'
    : '--experimental-permission';
}

/**
 * The Node flags of the sandboxed process (layer 2 above): read only `dir`, write nowhere, no child processes,
 * workers, addons or code from strings, and a heap limit. Run it with `cwd: dir` and an empty environment.
 */
export function sandboxArgs(dir: string, memoryMb: number): string[] {
  return [
    permissionFlag(),
    `--allow-fs-read=${dir}${sep}`,
    '--disallow-code-generation-from-strings',
    '--no-addons',
    `--max-old-space-size=${memoryMb}`,
    '--no-warnings',
  ];
}

function runHarness(
  dir: string,
  timeoutMs: number,
  memoryMb: number,
  signal: AbortSignal | undefined,
): Promise<HarnessOutcome> {
  const args = [...sandboxArgs(dir, memoryMb), join(dir, 'harness.cjs')];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    let aborted = false;
    child.stdout.setEncoding('utf8').on('data', (data: string) => {
      if (stdout.length < MAX_OUTPUT_BYTES) stdout += data;
    });
    child.stderr.setEncoding('utf8').on('data', (data: string) => {
      if (stderr.length < 64 * 1024) stderr += data;
    });
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs + KILL_GRACE_MS);
    const onAbort = (): void => {
      aborted = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // An abort while the files were written has already fired.
    if (signal?.aborted) onAbort();
    child.on('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (aborted && signal) return reject(abortErrorOf(signal));
      const messages = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .flatMap((line): HarnessMessage[] => {
          try {
            return [JSON.parse(line) as HarnessMessage];
          } catch {
            return [];
          }
        });
      resolve({ messages, killed, exitCode, signal: exitSignal, stderr });
    });
  });
}

function reportOf(
  cases: readonly TestCase[],
  outcome: HarnessOutcome,
  memoryMb: number,
  timeoutMs: number,
): CandidateReport {
  const results = new Map<number, { ok: boolean; message?: string }>();
  let loadError: string | undefined;
  let timedOut = outcome.killed;
  for (const message of outcome.messages) {
    if (message.t === 'test')
      results.set(message.i, {
        ok: message.ok,
        ...(message.message === undefined ? {} : { message: message.message }),
      });
    else if (message.t === 'load') loadError = message.message;
    else if (message.t === 'timeout' || message.t === 'load-timeout') timedOut = true;
  }
  const done = outcome.messages.some((m) => m.t === 'done');
  let crashed: string | undefined;
  if (!done && !outcome.killed) {
    crashed = /heap out of memory|allocation failed/i.test(outcome.stderr)
      ? `ran out of memory (limit ${memoryMb} MB)`
      : `the process died (${outcome.signal ?? `exit code ${String(outcome.exitCode)}`})`;
  }
  const notRun = timedOut
    ? `not run: the time limit (${timeoutMs} ms) was reached`
    : crashed
      ? `not run: ${crashed}`
      : 'not run';
  const failures: TestFailure[] = [];
  const notes: string[] = [];
  let passed = 0;
  cases.forEach((testCase, index) => {
    const result = results.get(index);
    const firstLine = testCase.source.split('\n')[0]!.slice(0, 120);
    if (!testCase.counted) {
      if (result && !result.ok) notes.push(`setup \`${firstLine}\` threw: ${result.message ?? 'an error'}`);
      return;
    }
    if (result?.ok) passed++;
    else failures.push({ test: firstLine, message: result ? (result.message ?? 'failed') : notRun });
  });
  return {
    passed,
    total: cases.filter((c) => c.counted).length,
    timedOut,
    failures,
    notes,
    ...(loadError === undefined ? {} : { loadError }),
    ...(crashed === undefined ? {} : { crashed }),
  };
}

/**
 * Runs inside the sandboxed process, as CommonJS. `prelude` is compiled into the candidate's context (it is
 * source text there, never a host function), so `assert` and friends belong to that context's realm.
 */
const HARNESS = String.raw`'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const emit = (message) => {
  const line = JSON.stringify(message) + '\n';
  // stdout may be a non-blocking pipe: retry while the parent catches up.
  for (;;) { try { fs.writeSync(1, line); return; } catch (error) { if (error.code !== 'EAGAIN') throw error; } }
};

// Node 20's permission model does not cover the network.
const deny = () => { throw new Error('network access is not allowed in the code runner'); };
for (const name of ['net', 'tls', 'http', 'https', 'http2', 'dgram', 'dns']) {
  const mod = require(name);
  for (const key of ['connect', 'createConnection', 'request', 'get', 'createSocket', 'lookup', 'resolve', 'resolve4', 'resolve6']) {
    if (typeof mod[key] === 'function') mod[key] = deny;
  }
}
require('net').Socket.prototype.connect = deny;
globalThis.fetch = deny;

function prelude() {
  const g = globalThis;
  const show = (value) => {
    try {
      if (typeof value === 'string') return JSON.stringify(value);
      if (typeof value === 'bigint') return value + 'n';
      if (typeof value === 'function') return '[function ' + (value.name || 'anonymous') + ']';
      if (typeof value === 'object' && value !== null) { const s = JSON.stringify(value); if (s !== undefined) return s.length > 200 ? s.slice(0, 200) + '…' : s; }
      return String(value);
    } catch (error) { return '[a value that cannot be shown]'; }
  };
  const fail = (message, fallback) => {
    if (message instanceof Error) throw message;
    const error = new Error(message === undefined ? fallback : String(message));
    error.name = 'AssertionError';
    throw error;
  };
  const same = (a, b, strict, seen) => {
    if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (seen.some((pair) => pair[0] === a && pair[1] === b)) return true;
    seen.push([a, b]);
    if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
    if (a instanceof Map && b instanceof Map) return a.size === b.size && same([...a.entries()], [...b.entries()], strict, seen);
    if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => [...b].some((y) => same(x, y, strict, seen)));
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    if (keysA.length !== keysB.length) return false;
    return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && same(a[key], b[key], strict, seen));
  };
  const expected = (a, b) => 'expected ' + show(b) + ', got ' + show(a);
  const make = (strictByDefault) => {
    const assert = (value, message) => { if (!value) fail(message, 'expected a truthy value, got ' + show(value)); };
    assert.ok = assert;
    assert.strictEqual = (a, b, m) => { if (!Object.is(a, b)) fail(m, expected(a, b)); };
    assert.notStrictEqual = (a, b, m) => { if (Object.is(a, b)) fail(m, 'expected a value other than ' + show(b)); };
    assert.deepStrictEqual = (a, b, m) => { if (!same(a, b, true, [])) fail(m, expected(a, b)); };
    assert.notDeepStrictEqual = (a, b, m) => { if (same(a, b, true, [])) fail(m, 'expected a value other than ' + show(b)); };
    assert.equal = strictByDefault ? assert.strictEqual : (a, b, m) => { if (!(a == b || (a !== a && b !== b))) fail(m, expected(a, b)); };
    assert.notEqual = strictByDefault ? assert.notStrictEqual : (a, b, m) => { if (a == b) fail(m, 'expected a value other than ' + show(b)); };
    assert.deepEqual = strictByDefault ? assert.deepStrictEqual : (a, b, m) => { if (!same(a, b, false, [])) fail(m, expected(a, b)); };
    assert.notDeepEqual = strictByDefault ? assert.notDeepStrictEqual : (a, b, m) => { if (same(a, b, false, [])) fail(m, 'expected a value other than ' + show(b)); };
    assert.throws = (fn, check, m) => {
      try { fn(); } catch (error) {
        if (typeof check === 'function' && check.prototype !== undefined && !(error instanceof check)) fail(m, 'threw the wrong kind of error: ' + show(String(error)));
        if (check instanceof RegExp && !check.test(String(error && error.message))) fail(m, 'the error ' + show(String(error)) + ' does not match ' + String(check));
        return;
      }
      fail(typeof check === 'string' ? check : m, 'expected the function to throw');
    };
    assert.doesNotThrow = (fn, m) => { try { fn(); } catch (error) { fail(m, 'expected no error, got ' + show(String(error && error.message))); } };
    assert.match = (text, pattern, m) => { if (!pattern.test(text)) fail(m, 'expected ' + show(text) + ' to match ' + String(pattern)); };
    assert.fail = (m) => fail(m, 'failed');
    return assert;
  };
  const assert = make(false);
  assert.strict = make(true);
  assert.strict.strict = assert.strict;
  const noop = () => undefined;
  g.console = { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop, table: noop, dir: noop };
  g.assert = assert;
  g.module = { exports: {} };
  g.exports = g.module.exports;
  g.require = (name) => {
    if (name === 'assert' || name === 'node:assert') return assert;
    if (name === 'assert/strict' || name === 'node:assert/strict') return assert.strict;
    throw new Error('require("' + name + '") is not available in the code runner: plain JavaScript and assert only');
  };
  g.test = g.it = (name, fn) => fn();
  g.__weftExpose = () => {
    const exported = g.module.exports;
    if (typeof exported === 'function' && exported.name && !(exported.name in g)) g[exported.name] = exported;
    else if (exported && typeof exported === 'object') for (const key of Object.keys(exported)) if (!(key in g)) g[key] = exported[key];
  };
  g.__weftSettle = (value) => {
    const state = { status: 'pending', error: undefined };
    Promise.resolve(value).then(() => { state.status = 'fulfilled'; }, (error) => { state.status = 'rejected'; state.error = error; });
    return state;
  };
}

const describe = (error) => {
  try {
    if (error !== null && typeof error === 'object' && 'message' in error) {
      const name = String(error.name || 'Error');
      return ((name === 'Error' || name === 'AssertionError') ? '' : name + ': ') + String(error.message);
    }
    return 'threw ' + String(error);
  } catch (e) { return 'threw a value that cannot be shown'; }
};
const isTimeout = (error) => error !== null && typeof error === 'object' && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';

const payload = JSON.parse(fs.readFileSync(path.join(__dirname, 'payload.json'), 'utf8'));
const deadline = Date.now() + payload.timeoutMs;
const sandbox = Object.create(null);
const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
const run = (source, filename) => new vm.Script(source, { filename }).runInContext(context, { timeout: Math.max(1, deadline - Date.now()) });

run('(' + prelude.toString() + ')()', 'prelude.js');
try {
  run(payload.code, 'candidate.js');
} catch (error) {
  if (isTimeout(error)) { emit({ t: 'load-timeout' }); emit({ t: 'done' }); process.exit(0); }
  emit({ t: 'load', message: describe(error).slice(0, 300) });
}
run('__weftExpose()', 'expose.js');
for (let i = 0; i < payload.tests.length; i++) {
  try {
    const value = run(payload.tests[i], 'test-' + (i + 1) + '.js');
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
      sandbox.__weftPending = value;
      const state = run('__weftSettle(__weftPending)', 'settle.js');
      if (state.status === 'pending') throw new Error('the test returned a promise that never settled (timers and I/O are not available)');
      if (state.status === 'rejected') throw state.error;
    }
    emit({ t: 'test', i, ok: true });
  } catch (error) {
    if (isTimeout(error)) { emit({ t: 'timeout', i }); break; }
    emit({ t: 'test', i, ok: false, message: describe(error).slice(0, 300) });
  }
}
emit({ t: 'done' });
process.exit(0);
`;
