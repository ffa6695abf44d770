/**
 * Isolated workflow runs: hostile expressions that no in-process limit stops (one long JSONata step, a
 * backtracking regex) end with a result or a located error, and the process goes on.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeWorkflowWorkers, runWorkflowIsolated } from '../../src/distill/run-workflow-isolated.js';
import { loadModuleTools } from '../../src/tools/module-tools.js';
import type { Tool } from '../../src/tools/tool.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { endsWith } from './ends-with.js';

afterAll(closeWorkflowWorkers);

const HOSTILE = {
  'a backtracking regex': `{% $match("${'a'.repeat(32)}!", /(a+)+$/) %}`,
  // A sequence holds at most a million items (larger ones are refused before they are made: isolated-memory.test.ts).
  'a reduce over a million': '{% $reduce([1..1000000], function($a, $b){ $a + $b }) %}',
  'a map over a million': '{% [1..1000000].{"k": $} %}',
  'a sort of a million': '{% $sort([1..1000000], function($a, $b){ $a < $b }) %}',
};

describe('runWorkflowIsolated', () => {
  for (const [name, expression] of Object.entries(HOSTILE)) {
    it(`ends ${name} with a result or a located error`, async () => {
      const outcome = await runWorkflowIsolated(endsWith(expression), { input: {}, timeLimitMs: 300 }).then(
        (result) => ({ ok: true as const, output: result.output }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      if (outcome.ok) expect(name).toBe('a backtracking regex');
      else
        expect(outcome.error).toMatchObject({
          code: expect.stringMatching(/^(TIMEOUT|WORKFLOW)$/),
          location: { field: 'node e (output)' },
          message: expect.stringMatching(/^node e \(output\): /),
        });
    });
  }

  it('runs the backtracking regex to its answer on the linear-time engine', async () => {
    const result = await runWorkflowIsolated(endsWith(HOSTILE['a backtracking regex']), { input: {} });
    expect(result.output).toBeUndefined();
  });

  it('refuses a regex with a backreference, naming node and field', async () => {
    await expect(runWorkflowIsolated(endsWith('{% $match("aa", /(a)\\1/) %}'), { input: {} })).rejects.toMatchObject({
      code: 'WORKFLOW',
      location: { field: 'node e (output)' },
      message: expect.stringContaining('linear-time engine'),
    });
  });

  it('stops a case that never ends at its time limit and runs the next case', async () => {
    const forever = endsWith('{% ($f := function($n){ $f($n + 1) }; $f(0)) %}');
    await expect(runWorkflowIsolated(forever, { input: {}, timeLimitMs: 200 })).rejects.toMatchObject({
      code: expect.stringMatching(/^(TIMEOUT|WORKFLOW)$/),
      location: { field: 'node e (output)' },
    });
    const fine = await runWorkflowIsolated(endsWith('{% inputs.n * 2 %}'), { input: { n: 21 } });
    expect(fine.output).toBe(42);
  });

  it('keeps serving a host that runs ever new workflows (the workers forget old ones, and are sent them again)', async () => {
    const workflows = Array.from({ length: 230 }, (_, i) => endsWith(`{% inputs.n + ${i} %}`));
    for (const [i, workflow] of workflows.entries())
      expect((await runWorkflowIsolated(workflow, { input: { n: 1 }, jobs: 1 })).output).toBe(1 + i);
    expect((await runWorkflowIsolated(workflows[0]!, { input: { n: 5 }, jobs: 1 })).output).toBe(5);
  });

  it('calls tools on this thread, with their results in the case', async () => {
    const calls: unknown[] = [];
    const add: Tool = {
      name: 'add',
      description: 'adds',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      source: 'test',
      async call(args) {
        calls.push(args);
        const { a, b } = args as { a: number; b: number };
        return a + b;
      },
    };
    const workflow: ExecutableWorkflow = {
      name: 'adds',
      nodes: [
        { id: 's', kind: 'start' },
        { id: 't', kind: 'tool', tool: 'add', args: { a: '{% inputs.x %}', b: 2 }, out: 'sum' },
        { id: 'e', kind: 'end', output: '{% vars.sum * 10 %}' },
      ],
      edges: [
        { from: 's', to: 't' },
        { from: 't', to: 'e' },
      ],
    };
    const results = await Promise.all(
      [1, 2, 3].map((x) => runWorkflowIsolated(workflow, { input: { x }, tools: [add] })),
    );
    expect(results.map((result) => result.output)).toEqual([30, 40, 50]);
    expect(results[0]!.toolCalls).toEqual([{ node: 't', tool: 'add', args: { a: 1, b: 2 }, result: 3 }]);
    expect(calls).toHaveLength(3);
  });

  it('fails a case whose tool fails, naming node and tool', async () => {
    const broken: Tool = {
      name: 'broken',
      description: 'fails',
      inputSchema: { type: 'object' },
      source: 'test',
      async call() {
        throw new Error('out of stock');
      },
    };
    const workflow: ExecutableWorkflow = {
      name: 'breaks',
      nodes: [
        { id: 's', kind: 'start' },
        { id: 't', kind: 'tool', tool: 'broken', args: {} },
        { id: 'e', kind: 'end' },
      ],
      edges: [
        { from: 's', to: 't' },
        { from: 't', to: 'e' },
      ],
    };
    await expect(runWorkflowIsolated(workflow, { input: {}, tools: [broken] })).rejects.toMatchObject({
      code: 'WORKFLOW',
      location: { field: 'nodes.t' },
      message: expect.stringContaining('tool broken failed: broken: out of stock'),
    });
  });

  describe('tools of a tools module, run in the case worker itself', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'weft-isolated-modules-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));
    const oneCall = (tool: string): ExecutableWorkflow => ({
      name: 'calls',
      nodes: [
        { id: 's', kind: 'start' },
        { id: 't', kind: 'tool', tool, args: {}, out: 'r' },
        { id: 'e', kind: 'end', output: '{% vars.r %}' },
      ],
      edges: [
        { from: 's', to: 't' },
        { from: 't', to: 'e' },
      ],
    });

    it('calls them in the worker (no round trip), gives their time back, and stops a busy one at its timeoutMs', async () => {
      const file = join(scratch, 'kit.mjs');
      writeFileSync(
        file,
        [
          "import { threadId } from 'node:worker_threads';",
          "export const where = { description: 'The thread it runs on.', inputSchema: { type: 'object' }, execute: () => ({ threadId }) };",
          // Waits longer than the case's own limit: the wait is the tool's, not the case's.
          "export const slow = { description: 'Waits.', inputSchema: { type: 'object' }, timeoutMs: 5000, execute: () => new Promise((resolve) => setTimeout(() => resolve('waited'), 600)) };",
          "export const spin = { description: 'Never returns.', inputSchema: { type: 'object' }, timeoutMs: 300, execute() { for (;;) {} } };",
        ].join('\n'),
      );
      const { tools } = await loadModuleTools(file);
      expect(tools.every((tool) => tool.module?.file === file)).toBe(true);
      const ran = await runWorkflowIsolated(oneCall('where'), { input: {}, tools });
      // Not this thread (0), not a tools-module worker: the case's own worker ran it.
      const caseThread = (ran.output as { threadId: number }).threadId;
      expect(caseThread).toBeGreaterThan(0);
      expect((await runWorkflowIsolated(oneCall('slow'), { input: {}, tools, timeLimitMs: 200 })).output).toBe(
        'waited',
      );
      await expect(runWorkflowIsolated(oneCall('spin'), { input: {}, tools, timeLimitMs: 5000 })).rejects.toMatchObject(
        {
          code: 'TIMEOUT',
          message: expect.stringMatching(/tool spin: no result after 300 ms/),
        },
      );
      // The process and the pool go on.
      expect((await runWorkflowIsolated(oneCall('slow'), { input: {}, tools })).output).toBe('waited');
    });

    it('runs cases on as many worker threads as jobs says, and no more', async () => {
      const file = join(scratch, 'nap.mjs');
      const arrivals = join(scratch, 'arrivals.txt');
      const want = join(scratch, 'want.txt');
      writeFileSync(
        file,
        [
          "import { appendFileSync, readFileSync } from 'node:fs';",
          "import { threadId } from 'node:worker_threads';",
          // A case holds its worker while its tool waits, here until `want` threads have called it (or 30 s): six
          // cases at once need as many workers as they can get, and get at most `jobs`.
          `const arrivals = ${JSON.stringify(arrivals)};`,
          `const want = ${JSON.stringify(want)};`,
          'const seen = () => new Set(readFileSync(arrivals, "utf8").split("\\n").filter(Boolean)).size;',
          "export const nap = { description: 'Waits for company, then says where.', inputSchema: { type: 'object' }, timeoutMs: 60000,",
          '  execute: async () => {',
          '    appendFileSync(arrivals, `${threadId}\\n`);',
          '    const needed = Number(readFileSync(want, "utf8"));',
          '    for (let i = 0; i < 3000 && seen() < needed; i++) await new Promise((resolve) => setTimeout(resolve, 10));',
          '    return threadId;',
          '  } };',
        ].join('\n'),
      );
      const { tools } = await loadModuleTools(file);
      const threads = async (jobs: number) => {
        writeFileSync(arrivals, '');
        writeFileSync(want, String(jobs));
        return new Set(
          (
            await Promise.all(
              Array.from({ length: 6 }, () => runWorkflowIsolated(oneCall('nap'), { input: {}, tools, jobs })),
            )
          ).map((result) => result.output),
        ).size;
      };
      expect(await threads(1)).toBe(1);
      expect(await threads(3)).toBe(3);
      await expect(runWorkflowIsolated(oneCall('nap'), { input: {}, tools, jobs: 0 })).rejects.toMatchObject({
        code: 'BAD_INPUT',
        location: { field: 'jobs' },
      });
    });

    describe('a case sent to a worker while it still runs another', () => {
      const counted = join(scratch, 'counted.txt');
      const setUp = async () => {
        const file = join(scratch, 'queue-kit.mjs');
        writeFileSync(
          file,
          [
            "import { appendFileSync } from 'node:fs';",
            `export const count = { description: 'Notes each call.', inputSchema: { type: 'object' }, execute: () => { appendFileSync(${JSON.stringify(counted)}, 'x\\n'); return 'counted'; } };`,
            "export const spin = { description: 'Never returns.', inputSchema: { type: 'object' }, timeoutMs: 300, execute() { for (;;) {} } };",
            "export const nap = { description: 'Waits.', inputSchema: { type: 'object' }, execute: () => new Promise((resolve) => setTimeout(() => resolve('rested'), 300)) };",
          ].join('\n'),
        );
        writeFileSync(counted, '');
        const { tools } = await loadModuleTools(file);
        // The pool of one worker is up before the cases come, so the second case is queued in the worker itself.
        await runWorkflowIsolated(oneCall('nap'), { input: {}, tools, jobs: 1 });
        return tools;
      };
      const calls = () => readFileSync(counted, 'utf8').split('\n').filter(Boolean).length;

      it('runs once, on the next worker, when the one ahead of it is stopped', async () => {
        const tools = await setUp();
        const outcomes = await Promise.allSettled([
          runWorkflowIsolated(oneCall('spin'), { input: {}, tools, jobs: 1 }),
          ...Array.from({ length: 3 }, () => runWorkflowIsolated(oneCall('count'), { input: {}, tools, jobs: 1 })),
        ]);
        expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { code: 'TIMEOUT' } });
        expect(outcomes.slice(1)).toEqual(
          Array.from({ length: 3 }, () => ({
            status: 'fulfilled',
            value: expect.objectContaining({ output: 'counted' }),
          })),
        );
        expect(calls()).toBe(3);
      });

      it('is never queued behind a case waiting on a tool of this thread', async () => {
        const tools = await setUp();
        const count = tools.find((tool) => tool.name === 'count')!;
        let open: () => void = () => {};
        const gate: Tool = {
          name: 'gate',
          description: 'Waits until the test opens it.',
          inputSchema: { type: 'object' },
          source: 'test',
          call: () => new Promise((resolve) => (open = () => resolve('opened'))),
        };
        // Both workers of a pool of two up first: only then is a second case sent to a busy worker.
        await Promise.all([1, 2].map(() => runWorkflowIsolated(oneCall('nap'), { input: {}, tools, jobs: 2 })));
        const waiting = runWorkflowIsolated(oneCall('gate'), { input: {}, tools: [gate, count], jobs: 2 });
        let passedGate = false;
        void waiting.then(() => {
          passedGate = true;
        });
        const computing = [1, 2].map(() => runWorkflowIsolated(oneCall('nap'), { input: {}, tools, jobs: 2 }));
        // Both finish while the gate is shut: the second went behind the first, not behind the waiting case.
        const opener = setTimeout(() => open(), 8_000);
        const settled = await Promise.all(computing.map((run) => run.then(() => 'done')));
        const stillShut = !passedGate;
        clearTimeout(opener);
        open();
        expect(settled).toEqual(['done', 'done']);
        expect(stillShut).toBe(true);
        expect((await waiting).output).toBe('opened');
      });

      it('never runs once cancelled, though its worker already holds it', async () => {
        const tools = await setUp();
        const controller = new AbortController();
        const ahead = runWorkflowIsolated(oneCall('nap'), { input: {}, tools, jobs: 1 });
        const cancelled = runWorkflowIsolated(oneCall('count'), {
          input: {},
          tools,
          jobs: 1,
          signal: controller.signal,
        });
        controller.abort();
        await expect(cancelled).rejects.toMatchObject({ code: 'ABORTED' });
        expect((await ahead).output).toBe('rested');
        expect((await runWorkflowIsolated(oneCall('count'), { input: {}, tools, jobs: 1 })).output).toBe('counted');
        expect(calls()).toBe(1);
      });
    });
  });
});
