/**
 * The prompts of the summarize stage and of the single-stage baselines: the workflow format and its
 * expression rules, the traces (each call with its arguments and result or error, clipped), the business tools as
 * text (names, descriptions, schemas: described, not callable in the summarize stage), and how to finish.
 *
 * The system prompt carries tagged JSON blocks (the dialog layer's `<name>` + JSON + `</name>` convention) that the
 * `sim:` model reads to play the summarizer offline (sim-summarize.ts): the phase, the business tools' names, and in
 * the single-stage baselines the instance's input. Trace contents only ever go into user messages.
 */
import { jsonBlock, readJsonBlock } from '../text/json-block.js';
import type { NewTrace } from '../store/traces.js';
import { clip } from '../text/clip.js';
import type { Tool } from '../tools/tool.js';

export const DISTILL_TAGS = {
  /** `plan` (ES-P&E's planning call), `build` (the graph-building loop), `single` (a single-stage baseline). */
  phase: 'distill-phase',
  /** The business tools' names (JSON array). */
  businessTools: 'business-tools',
  /** Single-stage: the instance's input (JSON object). */
  input: 'task-input',
} as const;

export type DistillPhase = 'plan' | 'build' | 'single';

const MAX_VALUE_CHARS = 800;
const MAX_CALLS_SHOWN = 120;
/** Traces shown in one prompt (`all_success` over a large batch would not fit any context). */
export const MAX_TRACES_SHOWN = 20;
const MAX_SCHEMA_CHARS = 2_000;

const FORMAT = `A workflow is a graph of nodes joined by edges. It runs from its start node to an end node with no model:
- start: declares the inputs (name → JSON Schema); exactly one.
- tool: calls a business tool with args; "out" names the variable that receives the result.
- condition: "expr" is evaluated; its edges carry "when": true / false (or values, then one edge with "default": true).
- set: assigns variables ("values": name → value).
- forEach: runs the sub-path that starts at "body" once per item of "items" (the item is vars.<as>, default vars.item); the sub-path's last node has an edge back to the forEach node; "result" (per item) is collected into vars.<out>; the forEach node's other edge is taken after the loop.
- end: "output" is the workflow's result.
Every node other than an end and a condition has exactly one edge out. Loops are edges back to a condition node.

Values are JSON literals or JSONata expressions written inside {% and %}:
- "{% inputs.n %}" is the input n, "{% vars.total %}" the variable total (set by a set node, a tool node's out, or a forEach).
- e.g. "{% vars.i + 1 %}", "{% vars.order.status = 'shipped' %}", "{% $count(vars.items) > 0 %}", "{% inputs.name & '!' %}".
- A string without {% %} is literal text: "inputs.n" is just those eight characters.
Generalise from the traces: bind every argument to an input or to an earlier result instead of copying the concrete values the trace happened to use, and branch where a result decided what the agent did.`;

/** The system prompt of the summarize stage's calls. */
export function distillSystemPrompt(phase: 'plan' | 'build', tools: readonly Tool[]): string {
  const lines = [
    'You turn execution traces of a solved task into an executable workflow that solves the task for any input.',
    '',
    FORMAT,
    '',
  ];
  if (phase === 'plan') {
    lines.push(
      'First plan the graph; do not call any tool now. Reply with only a JSON array with one object per node, in order:',
      '[{"id": "<node id>", "kind": "start|tool|condition|set|forEach|end", "does": "<what it does, with its tool, arguments or expression>", "next": [{"to": "<node id>", "when": <value, for a condition>}]}]',
    );
  } else {
    lines.push(
      'Build the workflow with the graph tools; they are the only tools you can call now. The business tools below are described so you know their names and arguments: they are not callable in this stage.',
      'Every graph tool returns the graph so far, its problems and what is missing. Fix mistakes with remove_node and remove_edge. When nothing is missing and there is no error, call finish (it is refused while errors remain).',
    );
  }
  lines.push(
    '',
    jsonBlock(DISTILL_TAGS.phase, phase),
    jsonBlock(
      DISTILL_TAGS.businessTools,
      tools.map((t) => t.name),
    ),
  );
  return lines.join('\n');
}

/** The system prompt of a single-stage baseline: solve the instance with the business tools and build the workflow. */
export function singleStageSystemPrompt(
  tools: readonly Tool[],
  input: unknown,
  mode: 'react' | 'plan-execute',
): string {
  return [
    'You solve a task for one concrete input with the business tools, and you also build an executable workflow that solves the task for any input, with the graph tools (add_start, add_tool_node, …, finish).',
    mode === 'plan-execute'
      ? 'Plan first, then carry out your plan step by step.'
      : 'Think, call a tool, read its result, and go on.',
    // Asked as the execute stage asks (solve-prompts.ts), and read by the same parser (final-answer.ts).
    'When the workflow is finished, answer the task for this input without calling a tool: end with the final answer as JSON, a JSON value on its own or inside a ```json block.',
    '',
    FORMAT,
    '',
    jsonBlock(DISTILL_TAGS.phase, 'single'),
    jsonBlock(
      DISTILL_TAGS.businessTools,
      tools.map((t) => t.name),
    ),
    jsonBlock(DISTILL_TAGS.input, input ?? {}),
  ].join('\n');
}

/**
 * Characters of trace lines in one prompt: 20 traces of 120 calls with 800-character values came to 4 MB, far past
 * any model's context. A trace that would pass the budget is not shown (the first is always shown, cut to fit).
 */
export const MAX_TRACE_PROMPT_CHARS = 200_000;
const MAX_TASK_CHARS = 20_000;

/** The user message of the summarize stage: the task, the traces, the business tools. */
export function distillUserPrompt(traces: readonly NewTrace[], tools: readonly Tool[]): string {
  const task = traces[0]?.task ?? '';
  const shownTraces = traces.slice(0, MAX_TRACES_SHOWN);
  const lines = ['Task:', clip(task.trim(), MAX_TASK_CHARS), '', `Execution traces (${traces.length}):`];
  let budget = MAX_TRACE_PROMPT_CHARS;
  let shown = 0;
  for (const [index, trace] of shownTraces.entries()) {
    let block = traceLines(trace, index + 1);
    let size = block.reduce((sum, line) => sum + line.length + 1, 0);
    if (size > budget && shown > 0) break;
    if (size > budget) {
      // The first trace alone is too long: its first calls, then how many more.
      const kept: string[] = [];
      let used = 0;
      for (const line of block) {
        if (used + line.length + 1 > budget - 100) break;
        kept.push(line);
        used += line.length + 1;
      }
      block = [...kept, `  … the rest of this trace is not shown (${block.length - kept.length} lines)`];
      size = used;
    }
    lines.push('', ...block);
    budget -= size;
    shown++;
  }
  if (traces.length > shown) lines.push('', `… ${traces.length - shown} more traces not shown`);
  lines.push('', 'Business tools (described only):', ...toolLines(tools));
  return lines.join('\n');
}

/** One trace as text: its input, each call with arguments and result or error (clipped), its answer. */
export function traceLines(trace: NewTrace, number: number): string[] {
  const lines = [
    `Trace ${number} (${trace.success ? 'successful' : `unsuccessful${trace.error ? `: ${clip(trace.error, 200)}` : ''}`})`,
    `  input: ${shown(trace.input)}`,
  ];
  if (trace.plan && trace.plan.length > 0) lines.push(`  plan: ${clip(trace.plan.join(' | '), 1_000)}`);
  trace.calls.slice(0, MAX_CALLS_SHOWN).forEach((call, index) => {
    const outcome = call.ok ? `→ ${shown(call.result)}` : `→ error: ${clip(call.error ?? 'failed', MAX_VALUE_CHARS)}`;
    lines.push(`  ${index + 1}. ${call.tool} ${shown(call.args)} ${outcome}`);
  });
  if (trace.calls.length > MAX_CALLS_SHOWN) lines.push(`  … ${trace.calls.length - MAX_CALLS_SHOWN} more calls`);
  lines.push(`  final answer: ${trace.answer === undefined ? '(none)' : shown(trace.answer)}`);
  return lines;
}

export function toolLines(tools: readonly Tool[]): string[] {
  return tools.flatMap((tool) => [
    `- ${tool.name}: ${clip(tool.description.trim() || '(no description)', 500)}`,
    `  args schema: ${clip(JSON.stringify(tool.inputSchema), MAX_SCHEMA_CHARS)}`,
  ]);
}

function shown(value: unknown): string {
  return clip(typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'null'), MAX_VALUE_CHARS);
}

/** The phase a call's system prompt names (for the sim). */
export function distillPhaseOf(system: string | undefined): DistillPhase | undefined {
  const phase = system ? readJsonBlock(system, DISTILL_TAGS.phase) : undefined;
  return phase === 'plan' || phase === 'build' || phase === 'single' ? phase : undefined;
}

export function businessToolNamesOf(system: string | undefined): string[] {
  const names = system ? readJsonBlock(system, DISTILL_TAGS.businessTools) : undefined;
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : [];
}
