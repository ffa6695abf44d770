/**
 * Hard limits, `npm run bench -- limits`: how long hostile code runs before Weft stops it, and whether the process
 * stays responsive meanwhile.
 * - Four hostile JSONata expressions (a backtracking regex, a reduce, a map and a sort over a million items), each
 *   the output of a one-node workflow run as `weft exec` runs a case (in a worker thread, default limit): the time
 *   to its answer or its located error.
 * - A tools-file `kind: module` tool that busy-loops, with `timeoutMs: 1000`: the time to its failure.
 * - `weft mcp` (its server in this process, the SDK's client over the in-memory transport) answering `ping` every
 *   20 ms while a hostile `weft_exec` runs: the slowest answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeWorkflowWorkers, runWorkflowIsolated } from '../src/distill/run-workflow-isolated.js';
import { parseExecutableWorkflow } from '../src/distill/read-workflow-file.js';
import type { ExecutableWorkflow } from '../src/distill/workflow.js';
import { callTool } from '../src/tools/call-tool.js';
import { loadToolsFile } from '../src/tools/tools-file.js';
import { startMcp } from '../test/mcp/mcp-harness.js';
import type { Bench, BenchReport, ReportRow } from './report.js';

const HOSTILE: readonly { readonly label: string; readonly expression: string }[] = [
  { label: 'regex (a+)+$ on 32 a\'s and a "!"', expression: `$match("${'a'.repeat(32)}!", /(a+)+$/)` },
  // A sequence holds at most a million items (evaluate-value.ts): larger ones are refused before they are made.
  { label: '$reduce over 1,000,000 numbers', expression: '$reduce([1..1000000], function($a, $b){ $a + $b })' },
  { label: 'map of 1,000,000 objects', expression: '[1..1000000].{"k": $}' },
  { label: '$sort of 1,000,000 with a function', expression: '$sort([1..1000000], function($a, $b){ $a < $b })' },
];

async function workflowOf(expression: string): Promise<ExecutableWorkflow> {
  const { workflow, problems } = await parseExecutableWorkflow(JSON.stringify(oneNode(expression)), undefined);
  if (!workflow) throw new Error(`bench workflow refused: ${JSON.stringify(problems)}`);
  return workflow;
}

function oneNode(expression: string) {
  return {
    name: 'hostile',
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'end', kind: 'end', output: `{% ${expression} %}` },
    ],
    edges: [{ from: 'start', to: 'end' }],
  };
}

export const limitsBench: Bench = {
  name: 'limits',
  async run(): Promise<BenchReport> {
    const rows: ReportRow[] = [];
    const notes: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'weft-bench-limits-'));
    try {
      // Start-up (the worker loading JSONata) once, so the rows time the limits, not the first start.
      await runWorkflowIsolated(await workflowOf('1 + 1'), { input: {} });
      for (const hostile of HOSTILE) {
        const workflow = await workflowOf(hostile.expression);
        // From a ready worker: the one the previous row stopped is replaced at once, but starting takes a moment.
        await runWorkflowIsolated(await workflowOf('1 + 1'), { input: {} });
        const started = performance.now();
        const outcome = await runWorkflowIsolated(workflow, { input: {} }).then(
          (result) => `answered ${String(JSON.stringify(result.output) ?? 'nothing (no match)').slice(0, 40)}`,
          (error: unknown) => `failed: ${error instanceof Error ? error.message.slice(0, 120) : String(error)}`,
        );
        const ms = performance.now() - started;
        rows.push({
          label: `hostile: ${hostile.label}`,
          value: ms,
          unit: 'ms',
          goal: { comparison: '<', target: 2500 },
        });
        notes.push(`${hostile.label}: ${outcome}`);
      }

      writeFileSync(
        join(dir, 'busy.mjs'),
        "export const spin = { description: 'Never returns.', inputSchema: { type: 'object' }, timeoutMs: 1000, execute() { for (;;) {} } };\n",
      );
      writeFileSync(join(dir, 'tools.yaml'), 'tools:\n  - kind: module\n    path: ./busy.mjs\n');
      const tools = await loadToolsFile(join(dir, 'tools.yaml'));
      try {
        const spin = tools.tools.find((tool) => tool.name === 'spin')!;
        const started = performance.now();
        const called = await callTool(spin, {});
        const outcome = called.ok ? 'returned' : `failed: ${called.error.message.slice(0, 120)}`;
        rows.push({
          label: 'module tool busy loop, timeoutMs 1000',
          value: performance.now() - started,
          unit: 'ms',
          goal: { comparison: '<', target: 1500 },
        });
        notes.push(`module tool: ${outcome}`);
      } finally {
        await tools.close();
      }

      const file = join(dir, 'sort.workflow.json');
      writeFileSync(file, JSON.stringify(oneNode(HOSTILE[3]!.expression)));
      const mcp = await startMcp();
      try {
        let running = true;
        const exec = mcp.client
          .callTool({ name: 'weft_exec', arguments: { workflow: file } })
          .finally(() => (running = false));
        const pings: number[] = [];
        while (running) {
          const sent = performance.now();
          await mcp.client.ping();
          pings.push(performance.now() - sent);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await exec;
        rows.push({
          label: 'weft mcp ping while a hostile weft_exec runs, slowest',
          value: Math.max(...pings),
          unit: 'ms',
          goal: { comparison: '<', target: 100 },
        });
        notes.push(`mcp: ${pings.length} pings answered while the hostile case ran.`);
      } finally {
        await mcp.close();
      }
    } finally {
      await closeWorkflowWorkers();
      rmSync(dir, { recursive: true, force: true });
    }
    return { title: 'Hard limits on hostile expressions and tools (default limits)', rows, notes };
  },
};
