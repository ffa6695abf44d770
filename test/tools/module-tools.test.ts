import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { WeftError } from '../../src/errors.js';
import { callTool } from '../../src/tools/call-tool.js';
import { loadModuleTools } from '../../src/tools/module-tools.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/tools/', import.meta.url));
const MATH = join(FIXTURES, 'math-tools.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'weft-module-tools-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function loadError(path: string, options = {}): Promise<WeftError> {
  try {
    await loadModuleTools(path, options);
  } catch (error) {
    return error as WeftError;
  }
  throw new Error('expected the module to be refused');
}

describe('loadModuleTools', () => {
  it('names one module file by the path each loader gave, also when a worker already imported it', async () => {
    const first = await loadModuleTools('math-tools.mjs', { baseDir: FIXTURES });
    const again = await loadModuleTools(join(FIXTURES, 'math-tools.mjs'), { displayPath: 'kit/math.mjs' });
    const third = await loadModuleTools('math-tools.mjs', { baseDir: FIXTURES });
    expect(first.tools[0]!.source).toBe('module math-tools.mjs#add');
    expect(again.tools[0]!.source).toBe('module kit/math.mjs#add');
    expect(third.tools[0]!.source).toBe('module math-tools.mjs#add');
  });

  it('turns every tool-like export into a tool, named by its export or its `name`, with a JSON schema', async () => {
    const set = await loadModuleTools('math-tools.mjs', { baseDir: FIXTURES });
    expect(set.tools.map((tool) => tool.name)).toEqual(['add', 'divide', 'round']);
    const add = set.tools[0]!;
    expect(add.description).toBe('Adds two numbers.');
    expect(add.idempotent).toBe(true);
    expect(add.source).toBe('module math-tools.mjs#add');
    expect(add.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    // `digits` has a default, so the model need not send it.
    expect(set.tools[2]!.inputSchema).toMatchObject({ required: ['x'] });
    await set.close();
    await set.close();
  });

  it('calls module tools end to end: results, a thrown error as the outcome, bad arguments, zod defaults', async () => {
    const { tools } = await loadModuleTools(MATH);
    const [add, divide, round] = tools;
    expect(await callTool(add!, { a: 2, b: 3 })).toMatchObject({ ok: true, result: { sum: 5 } });
    expect(await callTool(divide!, { a: 1, b: 4 })).toMatchObject({ ok: true, result: 0.25 });
    const byZero = await callTool(divide!, { a: 1, b: 0 });
    expect(byZero).toMatchObject({ ok: false, error: { code: 'TOOL', message: 'divide: division by zero' } });
    const badArgs = await callTool(add!, { a: 'two', b: 3 });
    expect(badArgs).toMatchObject({
      ok: false,
      attempts: 0,
      error: { code: 'TOOL', message: 'add: argument "a" must be number (got string)' },
    });
    expect(await callTool(round!, { x: 2.567 })).toMatchObject({ ok: true, result: 3 });
    // A rule JSON Schema does say (max 10) and one zod checks in its own parse give the same kind of outcome.
    expect(await callTool(round!, { x: 1, digits: 11 })).toMatchObject({ ok: false, error: { code: 'TOOL' } });
  });

  it('loads only the exports named, and refuses a missing one or one that is not a tool, naming file and export', async () => {
    const set = await loadModuleTools(MATH, { exports: ['divide'], displayPath: 'math-tools.mjs' });
    expect(set.tools.map((tool) => tool.name)).toEqual(['divide']);
    const missing = await loadError(MATH, { exports: ['add', 'multiply'], displayPath: 'math-tools.mjs' });
    expect(missing.code).toBe('BAD_INPUT');
    expect(missing.message).toBe(
      'Tools module math-tools.mjs has no export "multiply" (its tools: add, divide, roundIt)',
    );
    expect(missing.location).toEqual({ file: 'math-tools.mjs', field: 'multiply' });
    const notTool = await loadError(MATH, { exports: ['notATool'], displayPath: 'math-tools.mjs' });
    expect(notTool.code).toBe('BAD_INPUT');
    expect(notTool.message).toMatch(/^Tools module math-tools\.mjs: export "notATool" is not a tool/);
  });

  it('a module that exports no tools, fails to import or does not exist is BAD_INPUT naming it', async () => {
    const none = await loadError(join(FIXTURES, 'no-tools.mjs'), { displayPath: 'no-tools.mjs' });
    expect(none.code).toBe('BAD_INPUT');
    expect(none.message).toMatch(/^Tools module no-tools\.mjs exports no tools/);
    const broken = await loadError(join(FIXTURES, 'broken.mjs'), { displayPath: 'broken.mjs' });
    expect(broken.code).toBe('BAD_INPUT');
    expect(broken.message).toBe('Tools module broken.mjs failed to load: this module fails on import');
    const absent = await loadError('absent.mjs', { baseDir: scratch });
    expect(absent.code).toBe('BAD_INPUT');
    expect(absent.message).toMatch(/^Tools module absent\.mjs does not exist/);
    // A module that exists but imports a package that is not installed: its import failed, it is not absent.
    writeFileSync(join(scratch, 'needs-package.mjs'), "import 'weft-no-such-package';\nexport const x = 1;\n");
    const needs = await loadError('needs-package.mjs', { baseDir: scratch });
    expect(needs.message).toMatch(
      /^Tools module needs-package\.mjs failed to load: Cannot find package 'weft-no-such-package'/,
    );
  });

  it('refuses duplicate and invalid tool names, and schemas JSON Schema cannot say (a bigint)', async () => {
    const duplicate = join(scratch, 'duplicate.mjs');
    writeFileSync(
      duplicate,
      `const t = { description: 'd', inputSchema: { type: 'object' }, execute: async () => 1 };
export const one = { ...t, name: 'same' };
export const two = { ...t, name: 'same' };`,
    );
    expect((await loadError(duplicate, { displayPath: 'duplicate.mjs' })).message).toBe(
      'Tools module duplicate.mjs: exports "one" and "two" are both named tool "same"',
    );
    const badName = join(scratch, 'bad-name.mjs');
    writeFileSync(
      badName,
      `export const t = { name: 'has space', description: 'd', inputSchema: { type: 'object' }, execute: async () => 1 };`,
    );
    expect((await loadError(badName)).message).toMatch(/tool name "has space" \(export "t"\) must be/);
    const transform = join(scratch, 'transform.mjs');
    const zodUrl = import.meta.resolve('zod');
    writeFileSync(
      transform,
      `import { z } from ${JSON.stringify(zodUrl)};
export const when = { description: 'd', inputSchema: z.object({ count: z.bigint() }), execute: async () => 1 };`,
    );
    const error = await loadError(transform, { displayPath: 'transform.mjs' });
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(/^transform\.mjs#when: the schema of tool "when" cannot be read: /);
    expect(error.location).toEqual({ file: 'transform.mjs', field: 'when' });
  });

  it('takes plain JSON Schema and AI SDK-style tools, passing the signal under both names', async () => {
    const plain = join(scratch, 'plain.mjs');
    writeFileSync(
      plain,
      `export const echo = {
  description: 'Echoes.',
  inputSchema: { jsonSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  execute: async ({ text }, { signal, abortSignal }) => ({ text, same: signal === abortSignal && signal instanceof AbortSignal }),
};`,
    );
    const { tools } = await loadModuleTools(plain);
    expect(tools[0]!.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(await callTool(tools[0]!, { text: 'hi' })).toMatchObject({ ok: true, result: { text: 'hi', same: true } });
    expect(await callTool(tools[0]!, {})).toMatchObject({
      ok: false,
      error: { message: 'echo: missing required argument "text"' },
    });
  });

  it('zod’s own parse checks what JSON Schema cannot say (a refinement), as an argument error', async () => {
    const refined = join(scratch, 'refined.mjs');
    writeFileSync(
      refined,
      `import { z } from ${JSON.stringify(import.meta.resolve('zod'))};
export const even = {
  description: 'Takes an even number.',
  inputSchema: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }),
  execute: async ({ n }) => n / 2,
};`,
    );
    const { tools } = await loadModuleTools(refined);
    expect(await callTool(tools[0]!, { n: 4 })).toMatchObject({ ok: true, result: 2 });
    expect(await callTool(tools[0]!, { n: 3 })).toMatchObject({
      ok: false,
      attempts: 1,
      error: { code: 'TOOL', message: 'even: argument "n": must be even' },
    });
  });

  it('stops a busy synchronous tool at its timeoutMs with a TIMEOUT naming it, while this thread goes on', async () => {
    const busy = join(scratch, 'busy.mjs');
    writeFileSync(
      busy,
      `export const spin = { description: 'Never returns.', inputSchema: { type: 'object' }, timeoutMs: 200,
  execute: () => { for (;;) {} } };
export const count = { description: 'Counts calls.', inputSchema: { type: 'object' }, execute: () => 'counted' };`,
    );
    const { tools } = await loadModuleTools(busy);
    const spin = tools.find((tool) => tool.name === 'spin');
    const count = tools.find((tool) => tool.name === 'count');
    // This thread's timers keep firing while the tool spins in its worker.
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 10);
    const outcome = await callTool(spin!, {});
    clearInterval(ticker);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: expect.stringMatching(/^spin: /) } });
    expect(ticks).toBeGreaterThan(0);
    expect(await callTool(count!, {})).toMatchObject({ ok: true, result: 'counted' });
  });

  it("what a tool prints reaches this thread's stdout and stderr before its answer does", async () => {
    const noisy = join(scratch, 'noisy.mjs');
    writeFileSync(
      noisy,
      `export const talk = { description: 'Prints.', inputSchema: { type: 'object' },
  execute: () => {
    for (let i = 0; i < 500; i++) console.log('line ' + i);
    process.stderr.write(Buffer.from('said on stderr\\n'));
    return 1;
  } };`,
    );
    const { tools } = await loadModuleTools(noisy);
    const seen: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      seen.push(`1:${String(chunk)}`);
      return true;
    });
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      seen.push(`2:${String(chunk)}`);
      return true;
    });
    try {
      expect(await callTool(tools[0]!, {})).toMatchObject({ ok: true, result: 1 });
      // Checked at once, with no wait: the order is the channel's, not luck.
      expect(seen).toEqual([...Array.from({ length: 500 }, (_, i) => `1:line ${i}\n`), '2:said on stderr\n']);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });

  it('loads a TypeScript module when a loader is present', async () => {
    const { tools } = await loadModuleTools(join(FIXTURES, 'greet-tools.ts'));
    expect(await callTool(tools[0]!, { name: 'Ada' })).toMatchObject({ ok: true, result: 'hello Ada' });
  });
});
