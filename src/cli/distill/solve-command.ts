/**
 * `weft solve TASK --tools T --input JSON --model M` (FlowMind's execute stage): an agent solves one instance
 * with business tools only; its trace is saved in the store and printed. `weft traces` lists the traces and
 * `weft traces show ID` prints one. `--model sim:reference=FILE` follows that workflow offline (the same prompts a
 * real model gets). Exit 1 when the solve did not succeed (no answer, or not the `--expected` one). The budget flags
 * bound the whole command (`--max-steps` bounds the solve's own calls): a spent budget saves the trace so far and
 * ends the command with the BUDGET error.
 */
import {
  type AgentStrategy,
  DEFAULT_SOLVE_MAX_STEPS,
  inertText,
  type JsonValue,
  loadToolsFile,
  loadWorkflowFile,
  type NewTrace,
  parseSimOptions,
  solveTask,
  TRACE_ID_PATTERN,
  toolArgsRedactor,
  traceAgent,
  tracedModel,
  type TraceRecord,
  traceStoreOf,
  WeftError,
  withDistillSim,
} from '../../internal.js';
import { budgetErrorJson, budgetJson, budgetScopeOf, endBudget } from '../budget-stop.js';
import { loadContext, loadModel, openExistingStore, openStore, requireValue, storePlace } from '../context.js';
import { choiceFlag, integerFlag } from '../flags.js';
import { inListOrder } from '../list-order.js';
import type { Output } from '../output.js';
import { readTask } from '../read-task.js';
import type { BudgetFlags } from '../budget-options.js';

export interface SolveFlags extends BudgetFlags {
  readonly tools?: string;
  readonly input?: string;
  readonly mode?: string;
  readonly model?: string;
  readonly taskKey?: string;
  readonly expected?: string;
  readonly maxSteps?: string;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
}

const MODES: readonly AgentStrategy[] = ['react', 'plan-execute'];
/** How much of a tool's arguments or result a listing shows. */
const CLIP = 200;
/**
 * Traces `weft traces` lists without `--limit`: each is read whole (calls, results), so listing a store of 50,000
 * of them ran out of memory after a minute and a half.
 */
export const DEFAULT_TRACES_LIMIT = 100;

export async function solveCommand(
  taskArgument: string,
  flags: SolveFlags,
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  // Every flag is checked before any file is read or model made.
  const toolsPath = requireValue(flags.tools, '--tools');
  const input = jsonFlag('input', requireValue(flags.input, '--input'));
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new WeftError('BAD_INPUT', '--input must be a JSON object', { location: { field: '--input' } });
  }
  const expected = flags.expected === undefined ? undefined : jsonFlag('expected', flags.expected);
  const mode = choiceFlag('mode', flags.mode, MODES) ?? 'react';
  const maxSteps = integerFlag('max-steps', flags.maxSteps, { min: 1 }) ?? DEFAULT_SOLVE_MAX_STEPS;
  if (flags.taskKey !== undefined && flags.taskKey.trim() === '') {
    throw new WeftError('BAD_INPUT', '--task-key is empty', { location: { field: '--task-key' } });
  }
  const { task } = await readTask(taskArgument);
  // Checked with the other flags, before any file is read; the wall time starts here.
  const scope = budgetScopeOf(flags);
  const context = await loadContext(flags);
  const loaded = await loadModel(flags.model, context.config);
  const toolSet = await loadToolsFile(toolsPath, { signal });
  try {
    const toolNames = toolSet.tools.map((tool) => tool.name);
    const referencePath = loaded.model.kind === 'sim' ? parseSimOptions(loaded.model.id).reference : undefined;
    const reference =
      referencePath === undefined ? undefined : (await loadWorkflowFile(referencePath, { toolNames })).workflow;
    // With tracing on: a `chat` span per call, under one `invoke_agent solver` span (tool calls make their own).
    const traced = tracedModel(withDistillSim(loaded.model, reference), {
      costOf: loaded.costOf,
      redactToolArgs: toolArgsRedactor(toolSet.tools),
    });
    const model = scope ? scope.metered(traced, (result) => loaded.costOf(result, loaded.model.id)) : traced;
    const store = traceStoreOf(await openStore(context));
    try {
      if (model.kind !== 'real') output.log(`model ${model.kind === 'sim' ? 'simulated' : 'scripted'}: not a real LLM`);
      const trace = await traceAgent(
        {
          agent: 'solver',
          attributes: {
            'weft.command': 'solve',
            'weft.solve.mode': mode,
            ...(flags.taskKey !== undefined ? { 'weft.task.key': flags.taskKey } : {}),
          },
          content: { 'weft.task': task },
        },
        () =>
          solveTask({
            model,
            tools: toolSet.tools,
            task,
            input: input as Record<string, JsonValue>,
            mode,
            maxSteps,
            toolsPath,
            ...(flags.taskKey !== undefined ? { taskKey: flags.taskKey } : {}),
            ...(expected !== undefined ? { expected } : {}),
            signal,
            // Ctrl-C or SIGTERM: the calls made so far are saved as an unsuccessful trace, not lost.
            keepOnAbort: true,
          }),
        (solved) => ({
          'weft.trace.id': solved.traceId,
          'weft.solve.success': solved.success,
          'weft.calls': solved.usage.calls,
          'gen_ai.usage.input_tokens': solved.usage.inputTokens,
          'gen_ai.usage.output_tokens': solved.usage.outputTokens,
        }),
      );
      await store.saveTrace(trace);
      if (signal.aborted) output.log(`weft solve: cancelled; the trace so far is saved as ${trace.traceId}`);
      const budgetError = endBudget(scope, output, `the trace so far is saved as ${trace.traceId}`);
      if (output.json) {
        output.document({
          traceId: trace.traceId,
          success: trace.success,
          answer: trace.answer ?? null,
          calls: trace.calls,
          usage: trace.usage,
          ...budgetJson(scope),
          // A spent budget ends the command: its located error, as any command's; the trace keeps its own words.
          ...(budgetError
            ? { error: budgetErrorJson(budgetError) }
            : trace.error !== undefined
              ? { error: trace.error }
              : {}),
        });
      } else {
        output.text(`trace ${trace.traceId}: ${trace.success ? 'success' : 'failed'}`);
        if (trace.plan) printPlan(trace.plan, output);
        printCalls(trace, output);
        output.text(`answer: ${'answer' in trace ? clipped(trace.answer, 2000) : '(none)'}`);
        if (trace.error !== undefined) output.text(inertText(`error: ${trace.error}`));
        output.text(usageLine(trace));
      }
      return trace.success && !budgetError ? 0 : 1;
    } finally {
      await store.close();
    }
  } finally {
    scope?.close();
    await toolSet.close();
  }
}

export interface TracesFlags {
  readonly oldestFirst?: boolean;
  readonly task?: string;
  readonly success?: boolean;
  readonly limit?: string;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
}

export async function tracesCommand(flags: TracesFlags, output: Output): Promise<number> {
  const limit = integerFlag('limit', flags.limit, { min: 1 });
  const context = await loadContext(flags);
  const runStore = await openExistingStore(context);
  try {
    // One more than the default shows whether there are more.
    const listed = runStore
      ? await traceStoreOf(runStore).listTraces({
          ...(flags.task !== undefined ? { taskKey: flags.task } : {}),
          ...(flags.success ? { success: true } : {}),
          limit: limit ?? DEFAULT_TRACES_LIMIT + 1,
        })
      : [];
    const more = limit === undefined && listed.length > DEFAULT_TRACES_LIMIT;
    // The store gives the newest first; the newest N are kept whichever way they are shown.
    const traces = inListOrder(more ? listed.slice(0, DEFAULT_TRACES_LIMIT) : listed, flags.oldestFirst);
    const rows = traces.map((trace) => ({
      traceId: trace.traceId,
      createdAt: trace.createdAt,
      taskKey: trace.taskKey ?? null,
      mode: trace.mode,
      model: trace.model,
      success: trace.success,
      calls: trace.calls.length,
      tokens: trace.usage.inputTokens + trace.usage.outputTokens,
      costUsd: trace.usage.costUsd ?? 0,
    }));
    const moreNote = `the newest ${DEFAULT_TRACES_LIMIT} traces are listed; there are more (--limit N lists N)`;
    if (output.json) {
      output.document({ traces: rows, ...(more ? { more: true } : {}) });
      if (more) output.log(`weft traces: ${moreNote}`);
      return 0;
    }
    if (rows.length === 0) output.text(`no traces in ${storePlace(context)}`);
    for (const row of rows) {
      output.text(
        inertText(
          `${row.traceId}  ${row.createdAt}  ${(row.taskKey ?? '-').padEnd(16)} ${row.mode.padEnd(12)} ${row.success ? 'ok    ' : 'failed'} ${String(row.calls).padStart(3)} calls ${String(row.tokens).padStart(7)} tokens  $${row.costUsd.toFixed(4)}  ${row.model}`,
        ),
      );
    }
    if (more) output.log(`weft traces: ${moreNote}`);
    return 0;
  } finally {
    await runStore?.close();
  }
}

export async function showTraceCommand(
  traceId: string,
  flags: Pick<TracesFlags, 'home' | 'store' | 'json'>,
  output: Output,
): Promise<number> {
  if (!TRACE_ID_PATTERN.test(traceId)) {
    const shown = inertText(traceId.length > 60 ? `${traceId.slice(0, 60)}…` : traceId);
    throw new WeftError(
      'BAD_INPUT',
      `"${shown}" (${traceId.length} characters) is not a trace id: ids look like t-20260101-120000-1a2b3c4d (see weft traces)`,
      { location: { field: '<traceId>' } },
    );
  }
  const context = await loadContext(flags);
  const runStore = await openExistingStore(context);
  try {
    const trace = runStore ? await traceStoreOf(runStore).getTrace(traceId) : undefined;
    if (!trace) {
      throw new WeftError('NOT_FOUND', `No trace "${traceId}" in ${storePlace(context)} (see \`weft traces\`)`, {
        location: { field: '<traceId>' },
      });
    }
    if (output.json) {
      output.document(trace);
      return 0;
    }
    printTrace(trace, output);
    return 0;
  } finally {
    await runStore?.close();
  }
}

function printTrace(trace: TraceRecord, output: Output): void {
  const firstLine = trace.task.split('\n')[0] ?? '';
  output.text(inertText(`trace ${trace.traceId}: ${trace.success ? 'success' : 'failed'} — ${clip(firstLine, 100)}`));
  output.text(
    inertText(
      `mode ${trace.mode}, model ${trace.model}${trace.taskKey !== undefined ? `, task key ${trace.taskKey}` : ''}, created ${trace.createdAt}${trace.runId !== undefined ? `, from run ${trace.runId}` : ''}`,
    ),
  );
  if (trace.toolsPath !== undefined) output.text(inertText(`tools ${trace.toolsPath}`));
  output.text(`input: ${clipped(trace.input, 2000)}`);
  if (trace.plan) printPlan(trace.plan, output);
  printCalls(trace, output);
  output.text(`answer: ${'answer' in trace ? clipped(trace.answer, 2000) : '(none)'}`);
  if (trace.expected !== undefined) output.text(`expected: ${clipped(trace.expected, 2000)}`);
  if (trace.error !== undefined) output.text(inertText(`error: ${trace.error}`));
  output.text(usageLine(trace));
}

function printPlan(plan: readonly string[], output: Output): void {
  output.text('plan:');
  plan.forEach((step, index) => output.text(inertText(`  ${index + 1}. ${clip(step, CLIP)}`)));
}

/** Each call with its plan step or subtask; a react trace's step (the model reply) is left to the dashboard. */
function printCalls(trace: Pick<NewTrace, 'calls' | 'mode'>, output: Output): void {
  const { calls } = trace;
  output.text(calls.length === 0 ? 'calls: none' : 'calls:');
  calls.forEach((call, index) => {
    const step =
      call.step === undefined || trace.mode === 'react'
        ? ''
        : `[${typeof call.step === 'number' ? `step ${call.step + 1}` : call.step}] `;
    const outcome = call.ok ? `→ ${clipped(call.result, CLIP)}` : `✗ ${clip(call.error ?? 'failed', CLIP)}`;
    output.text(inertText(`  ${index + 1}. ${step}${call.tool} ${clipped(call.args, CLIP)} ${outcome}`));
  });
}

function usageLine(trace: NewTrace): string {
  const { calls, inputTokens, outputTokens, costUsd } = trace.usage;
  return `${calls} model call${calls === 1 ? '' : 's'}, ${inputTokens + outputTokens} tokens, $${(costUsd ?? 0).toFixed(4)}`;
}

function clipped(value: unknown, limit: number): string {
  return inertText(clip(JSON.stringify(value) ?? 'null', limit));
}

function clip(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > limit ? `${flat.slice(0, limit)}… (${flat.length} characters)` : flat;
}

function jsonFlag(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WeftError('BAD_INPUT', `--${name} is not JSON: ${(error as Error).message}`, {
      location: { field: `--${name}` },
    });
  }
}
