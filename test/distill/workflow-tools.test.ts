/**
 * `kind: workflow` entries: a distilled workflow file offered as a tool. Its inputs are the tool's schema, its output
 * the result; it runs with no model, calls the tools of its section or of its own tools file, stops at its deadline
 * and at the caller's abort, and its failures are tool errors naming the node. Every problem of an entry is located.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatError, type WeftError } from '../../src/errors.js';
import { closeWorkflowWorkers, runWorkflowIsolated } from '../../src/distill/run-workflow-isolated.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { loadToolsFile } from '../../src/load-tools-file.js';
import { callTool } from '../../src/tools/call-tool.js';
import type { Tool, ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile as loadToolsFileOfLayer } from '../../src/tools/tools-file.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/workflow-tools/tools.yaml');
const FIXTURES = join(ROOT, 'test/fixtures/workflow-tools');
const SUITE = join(ROOT, 'examples/distill-suite');
const scratch = mkdtempSync(join(tmpdir(), 'weft-workflow-tools-'));
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await closeWorkflowWorkers();
});

// What the fixture module's tools saw (they run in worker threads): one line per event in this file.
const TOOL_LOG = join(scratch, 'tool-log.txt');
process.env.WEFT_TEST_TOOL_LOG = TOOL_LOG;
const toolLog = (): string[] =>
  existsSync(TOOL_LOG) ? readFileSync(TOOL_LOG, 'utf8').split('\n').filter(Boolean) : [];
const hangs = () => ({
  started: toolLog().filter((line) => line === 'started').length,
  aborted: toolLog().filter((line) => line === 'aborted').length,
});
const notes = () => toolLog().flatMap((line) => (line.startsWith('note ') ? [line.slice(5)] : []));

let files = 0;
function write(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}
function freshFile(text: string): string {
  return write(`tools-${(files += 1)}.yaml`, text);
}

async function failure(promise: Promise<unknown>): Promise<WeftError> {
  try {
    await promise;
  } catch (error) {
    return error as WeftError;
  }
  throw new Error('expected a failure');
}

function named(set: ToolSet, name: string): Tool {
  const tool = set.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${set.tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/** A workflow with one tool node calling `tool` with `x`, answering its result. */
function callingWorkflow(name: string, tool: string): string {
  return write(
    `${name}.workflow.json`,
    JSON.stringify({
      name,
      inputs: { x: { type: 'number' } },
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'call', kind: 'tool', tool, args: { a: '{% inputs.x %}', b: 1 }, out: 'r' },
        { id: 'end', kind: 'end', output: '{% vars.r %}' },
      ],
      edges: [
        { from: 'start', to: 'call' },
        { from: 'call', to: 'end' },
      ],
    }),
  );
}

describe('workflow tools', () => {
  it('offers a workflow as a tool: its inputs as the schema, its output as the result, its own tools hidden', async () => {
    const set = await loadToolsFile(EXAMPLE);
    try {
      // The kit's tools go to the workflows only.
      expect(set.tools.map((tool) => tool.name)).toEqual(['basket_total', 'add_up_to']);
      const basket = named(set, 'basket_total');
      expect(basket.inputSchema).toEqual({
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
              required: ['sku', 'quantity'],
            },
          },
        },
        required: ['items'],
        additionalProperties: false,
      });
      expect(basket.description).toMatch(/^Price a shopping basket/);
      expect(basket.source).toBe(`workflow ../distill-suite/basket-total/reference.workflow.json (${EXAMPLE}:5)`);
      // Every tool it calls is idempotent (the kit's are pure), so it is too.
      expect(basket.idempotent).toBe(true);
      expect(basket.workflow).toEqual({
        file: '../distill-suite/basket-total/reference.workflow.json',
        name: 'basket_total',
        calls: ['catalog_price', 'multiply', 'sum', 'round'],
        toolsFile: '../distill-suite/tools/kit.tools.yaml',
        timeoutMs: 10000,
        maxVisits: 10000,
      });
      const addUpTo = named(set, 'add_up_to');
      expect(addUpTo.description).toBe(
        'The sum 1 + 2 + … + n, computed by the distilled sum_to_n workflow one addition at a time.',
      );
      expect(addUpTo.workflow?.maxVisits).toBe(2000);

      const items = [
        { sku: 'MUG-02', quantity: 2 },
        { sku: 'LAMP-3', quantity: 1 },
      ];
      expect(await callTool(basket, { items })).toMatchObject({ ok: true, result: 55.9, attempts: 1 });
      expect(await callTool(addUpTo, { n: 100 })).toMatchObject({ ok: true, result: 5050 });
      // Its visit cap holds: n = 1000 needs about 3,000 visits.
      const capped = await callTool(addUpTo, { n: 1000 });
      expect(capped.ok).toBe(false);
      if (!capped.ok)
        expect(capped.error.message).toMatch(/^add_up_to: node \w+: stopped at the visit cap of 2000 node visits/);
    } finally {
      await set.close();
    }
  });

  it('refuses arguments that do not fit the inputs before anything runs, naming the argument', async () => {
    const set = await loadToolsFile(EXAMPLE);
    try {
      const basket = named(set, 'basket_total');
      const wrongType = await callTool(basket, { items: 'two mugs' });
      expect(wrongType).toMatchObject({ ok: false, attempts: 0, error: { code: 'TOOL' } });
      if (!wrongType.ok) expect(wrongType.error.message).toMatch(/^basket_total: argument "items" must be array/);
      const extra = await callTool(basket, { items: [], discount: 10 });
      expect(extra).toMatchObject({ ok: false, attempts: 0 });
      if (!extra.ok) expect(extra.error.message).toContain('discount');
      const missing = await callTool(named(set, 'add_up_to'), {});
      expect(missing).toMatchObject({ ok: false, attempts: 0 });
      if (!missing.ok) expect(missing.error.message).toContain('"n"');
    } finally {
      await set.close();
    }
  });

  it('a failing tool inside is a tool error naming the node, not a crash, and is not retried', async () => {
    const set = await loadToolsFile(EXAMPLE);
    try {
      const outcome = await callTool(named(set, 'basket_total'), { items: [{ sku: 'NOPE-9', quantity: 1 }] });
      expect(outcome).toMatchObject({ ok: false, attempts: 1, error: { code: 'TOOL', retryable: false } });
      if (!outcome.ok) {
        expect(outcome.error.message).toMatch(
          /^basket_total: node price: tool catalog_price failed: catalog_price: unknown SKU "NOPE-9"/,
        );
      }
    } finally {
      await set.close();
    }
  });

  it('stops at its deadline, naming the node reached, and the tool it waited on sees the stop', async () => {
    const set = await loadToolsFile(join(FIXTURES, 'tools.yaml'));
    try {
      // The deadline counts from the call: a first call of this depth of workflow tools also waits for its worker
      // thread to start, which under tsx can take longer than 300 ms. One call first, so that it is running.
      expect(await callTool(named(set, 'add_up_to'), { n: 3 })).toMatchObject({ ok: true, result: 6 });
      const before = hangs();
      const waited = await callTool(named(set, 'wait_for_it'), { label: 'x' });
      expect(waited).toMatchObject({ ok: false, attempts: 1, error: { code: 'TIMEOUT', retryable: false } });
      if (!waited.ok) {
        expect(waited.error.message).toBe('wait_for_it: node wait (args), tool hang: stopped at its 300 ms deadline');
      }
      expect(hangs().started - before.started).toBe(1);
      // The tool runs in a worker thread: it hears of the stop by message, a moment after the caller did.
      while (hangs().aborted === before.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(hangs().aborted - before.aborted).toBe(1);

      // A loop of set and condition nodes, far below its visit cap, is stopped by the deadline too.
      const spun = await callTool(named(set, 'spin'), {});
      expect(spun).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
      if (!spun.ok)
        expect(spun.error.message).toMatch(
          /^spin: node (more \(expr\)|next \(values\)): stopped at its 50 ms deadline$/,
        );
    } finally {
      await set.close();
    }
  });

  it('runs in a worker thread with hard limits: a hostile expression or allocation fails that call alone, naming the node', async () => {
    const hostile = (name: string, output: string) =>
      write(
        `${name}.workflow.json`,
        JSON.stringify({
          name,
          inputs: { n: { type: 'integer' } },
          nodes: [
            { id: 'start', kind: 'start' },
            { id: 'work', kind: 'set', values: { r: output } },
            { id: 'end', kind: 'end', output: '{% vars.r %}' },
          ],
          edges: [
            { from: 'start', to: 'work' },
            { from: 'work', to: 'end' },
          ],
        }),
      );
    hostile('forever', '{% ($f := function($n){ $f($n + 1) }; $f(inputs.n)) %}');
    hostile('hoard', '{% $count([inputs.n..300].{"a": [1..1000000]}) %}');
    hostile('double', '{% inputs.n * 2 %}');
    const file = freshFile(
      'tools:\n  - kind: workflow\n    file: ./forever.workflow.json\n  - kind: workflow\n    file: ./hoard.workflow.json\n  - kind: workflow\n    file: ./double.workflow.json\n',
    );
    const set = await loadToolsFile(file, { workflowLimits: { timeLimitMs: 500 } });
    // Time enough to fill its memory first, on a loaded machine too.
    const roomy = await loadToolsFile(file, { workflowLimits: { timeLimitMs: 60_000, memoryMb: 128 } });
    try {
      const forever = await callTool(named(set, 'forever'), { n: 0 });
      expect(forever).toMatchObject({ ok: false, attempts: 1, error: { code: 'TIMEOUT', retryable: false } });
      if (!forever.ok)
        expect(forever.error.message).toBe(
          "forever: node work (values): stopped at the case's time limit of 500 ms of computing (--time-limit; tool calls not counted)",
        );
      const hoard = await callTool(named(roomy, 'hoard'), { n: 1 });
      expect(hoard).toMatchObject({ ok: false, attempts: 1, error: { code: 'TOOL', retryable: false } });
      if (!hoard.ok)
        expect(hoard.error.message).toBe(
          'hoard: node work (values): stopped: it ran out of its 128 MB of memory (--worker-memory)',
        );
      // The process went on, and so do the section's other tools.
      expect(await callTool(named(set, 'double'), { n: 21 })).toMatchObject({ ok: true, result: 42 });
      expect(await callTool(named(roomy, 'double'), { n: 4 })).toMatchObject({ ok: true, result: 8 });
    } finally {
      await Promise.all([set.close(), roomy.close()]);
    }
  });

  it('a case calling a workflow tool does not wait for its own worker: the tool runs on workers of its own', async () => {
    const set = await loadToolsFile(join(FIXTURES, 'tools.yaml'), { workflowLimits: { jobs: 1 } });
    try {
      // One worker thread a depth: sum_then_note's run waits on add_up_to's, which needs a worker of its own.
      expect(await callTool(named(set, 'sum_then_note'), { n: 5 })).toMatchObject({ ok: true, result: 15 });
      // And a case run isolated itself (as `weft exec --jobs 1` runs one) calling a workflow tool.
      const caller = JSON.parse(readFileSync(callingWorkflow('outer', 'add_up_to'), 'utf8')) as ExecutableWorkflow;
      const viaCase = await runWorkflowIsolated(
        {
          ...caller,
          nodes: caller.nodes.map((node) => (node.kind === 'tool' ? { ...node, args: { n: '{% inputs.x %}' } } : node)),
        },
        { tools: set.tools, input: { x: 6 }, jobs: 1 },
      );
      expect(viaCase.output).toBe(21);
    } finally {
      await set.close();
    }
  });

  it("stops at the caller's abort: ABORTED for the caller, and the tool it waited on sees the stop", async () => {
    const set = await loadToolsFile(join(FIXTURES, 'tools.yaml'));
    try {
      const before = hangs();
      const controller = new AbortController();
      const call = callTool(named(set, 'wait_for_it'), { label: 'x' }, { signal: controller.signal });
      while (hangs().started === before.started) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      const error = await failure(call);
      expect(error.code).toBe('ABORTED');
      while (hangs().aborted === before.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(hangs().aborted - before.aborted).toBe(1);
    } finally {
      await set.close();
    }
  });

  it('calls the other tools of its section, other workflow tools included; idempotent only when they all are', async () => {
    const set = await loadToolsFile(join(FIXTURES, 'tools.yaml'));
    try {
      const before = notes().length;
      const sumThenNote = named(set, 'sum_then_note');
      expect(await callTool(sumThenNote, { n: 4 })).toMatchObject({ ok: true, result: 10 });
      expect(notes().slice(before)).toEqual(['10']);
      // note is not idempotent: neither is a workflow calling it, directly or not; a loop calling none is.
      expect(named(set, 'note_twice').idempotent).toBe(false);
      expect(sumThenNote.idempotent).toBe(false);
      expect(named(set, 'spin').idempotent).toBe(true);
      expect(await callTool(named(set, 'note_twice'), { text: 'hi' })).toMatchObject({
        ok: true,
        result: { notes: before + 3 },
      });
    } finally {
      await set.close();
    }
  });

  it('reports a call cycle at load time, directly or through other workflow tools', async () => {
    callingWorkflow('ping', 'pong');
    callingWorkflow('pong', 'ping');
    callingWorkflow('echo', 'echo');
    const file = freshFile(`tools:
  - kind: workflow
    file: ./ping.workflow.json
  - kind: workflow
    name: pong
    file: ./pong.workflow.json
  - kind: workflow
    file: ./echo.workflow.json
`);
    const error = await failure(loadToolsFile(file));
    expect(error.code).toBe('BAD_INPUT');
    expect(formatError(error).split('\n')).toEqual([
      `${file}: invalid tools file: 3 problems`,
      `  - ${file}:3:5 tools[0].file: workflow tool "ping" would call itself: ping → pong → ping`,
      `  - ${file}:5:5 tools[1].name: workflow tool "pong" would call itself: pong → ping → pong`,
      `  - ${file}:8:5 tools[2].file: workflow tool "echo" would call itself: echo → echo`,
    ]);
  });

  it("reports a workflow's tools file that leads back to a file being loaded", async () => {
    callingWorkflow('uses_outer', 'add');
    const inner = write(
      'inner.tools.yaml',
      `tools:
  - kind: workflow
    file: ./uses_outer.workflow.json
    tools: ./outer.tools.yaml
`,
    );
    const outer = write(
      'outer.tools.yaml',
      `tools:
  - kind: workflow
    name: via_inner
    file: ./uses_outer.workflow.json
    tools: ./inner.tools.yaml
`,
    );
    const text = formatError(await failure(loadToolsFile(outer)));
    expect(text).toContain(`${outer}:5:5 tools[0].tools: the tools file ${inner} has problems (listed with its name)`);
    expect(text).toContain(
      `${inner}:4:5 tools[0].tools: ${outer} is already being loaded (${outer} → ${inner} → ${outer}): a workflow's tools file cannot lead back to a file that names it`,
    );
  });

  it('reports every problem of its entries at once, located: files, checks, fields, tools, secrets, idempotence', async () => {
    callingWorkflow('adds_one', 'ad');
    callingWorkflow('notes_one', 'note');
    const kit = join(SUITE, 'tools/kit.mjs');
    const broken = join(ROOT, 'test/fixtures/workflows/broken.workflow.yaml');
    const file = freshFile(`tools:
  - kind: module
    path: ${kit}
    exports: [add]
  - kind: module
    path: ${join(FIXTURES, 'hang.mjs')}
    exports: [note]
  - kind: workflow
    file: ./no-such.workflow.json
  - kind: workflow
    file: ${broken}
  - kind: workflow
    file: ./adds_one.workflow.json
    secretArgs: [y]
  - kind: workflow
    file: ./notes_one.workflow.json
    idempotent: true
`);
    const error = await failure(loadToolsFile(file));
    expect(error.code).toBe('BAD_INPUT');
    const lines = formatError(error).split('\n');
    expect(lines[0]).toBe(`${file}: invalid tools file: 10 problems`);
    expect(lines.slice(1, 6)).toEqual([
      `  - ${file}:9:5 tools[2].file: cannot read the workflow file: no such file (${join(scratch, 'no-such.workflow.json')})`,
      `  - ${file}:11:5 tools[3].file: the workflow ${broken} does not check: 5 problems (listed with its name)`,
      `  - ${file}:13:5 tools[4].file: workflow "adds_one" calls tool "ad" (node call), which this tools section does not give (did you mean "add"?)`,
      `  - ${file}:14:18 tools[4].secretArgs[0]: "y" is not an input of the workflow (its inputs: x)`,
      `  - ${file}:17:5 tools[5].idempotent: workflow "notes_one" calls note (node call), which is not idempotent: a retry or a resumed run would call it again`,
    ]);
    // The workflow's own problems follow, located in it.
    expect(lines.slice(6)).toHaveLength(5);
    for (const line of lines.slice(6)) expect(line).toMatch(new RegExp(`^  - ${broken}:\\d+:\\d+ nodes\\[\\d\\]`));
    expect(lines[6]).toContain('JSONata syntax error');
  });

  it('names unknown fields with a guess, and checks the values of the known ones', async () => {
    const file = freshFile(`tools:
  - kind: workflow
    path: ./x.workflow.json
    timeout: 10
  - kind: workflow
    file: ./x.workflow.json
    name: "two words"
    maxVisits: 0
    timeoutMs: -1
    tools: [a, b]
`);
    const text = formatError(await failure(loadToolsFile(file)));
    expect(text).toContain(`${file}:2:5 tools[0].file: missing required field "file"`);
    expect(text).toContain(`${file}:3:5 tools[0].path: unknown field "path" (did you mean "file"?)`);
    expect(text).toContain(`${file}:4:5 tools[0].timeout: unknown field "timeout" (did you mean "timeoutMs"?)`);
    expect(text).toContain(`${file}:7:5 tools[1].name: "two words" must be 1-64 letters, digits, _ or -`);
    expect(text).toContain(`${file}:8:5 tools[1].maxVisits: expected a whole number from 1 to 1000000, got 0`);
    expect(text).toContain(`${file}:9:5 tools[1].timeoutMs: expected a whole number from 1 to 3600000, got -1`);
    expect(text).toContain(`${file}:10:5 tools[1].tools: expected a string, got`);
  });

  it('a duplicate name across a workflow tool and another source is reported naming both', async () => {
    const file = freshFile(`tools:
  - kind: module
    path: ${join(SUITE, 'tools/kit.mjs')}
    exports: [add]
  - kind: workflow
    name: add
    file: ${join(SUITE, 'sum-to-n/reference.workflow.json')}
`);
    const text = formatError(await failure(loadToolsFile(file)));
    expect(text).toContain(`${file}:6:5 tools[1].name: duplicate tool name "add": workflow`);
  });

  it("the tools layer's own loader, without the interpreter, reports workflow entries instead of dropping them", async () => {
    const file = freshFile(`tools:
  - kind: workflow
    file: ${join(SUITE, 'sum-to-n/reference.workflow.json')}
`);
    const text = formatError(await failure(loadToolsFileOfLayer(file)));
    expect(text).toContain(`${file}:2:5 tools[0].kind: workflow tools need the workflow interpreter`);
  });

  it('derives the tool name from the workflow name, or says to give one', async () => {
    const odd = write(
      'odd.workflow.json',
      JSON.stringify({
        name: '  Price  (EUR) ',
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'end', kind: 'end', output: 1 },
        ],
        edges: [{ from: 'start', to: 'end' }],
      }),
    );
    const none = write(
      'none.workflow.json',
      JSON.stringify({
        name: '…',
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'end', kind: 'end', output: 1 },
        ],
        edges: [{ from: 'start', to: 'end' }],
      }),
    );
    const ok = await loadToolsFile(freshFile(`tools:\n  - kind: workflow\n    file: ${odd}\n`));
    expect(ok.tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['Price_EUR', 'Runs the workflow "  Price  (EUR) ".'],
    ]);
    expect(await callTool(ok.tools[0]!, {})).toMatchObject({ ok: true, result: 1 });
    await ok.close();
    const file = freshFile(`tools:\n  - kind: workflow\n    file: ${none}\n`);
    expect(formatError(await failure(loadToolsFile(file)))).toContain(
      `${file}:2:5 tools[0]: the workflow's name "…" makes no tool name: give one in "name"`,
    );
  });
});
