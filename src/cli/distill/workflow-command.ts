/**
 * `weft workflow check FILE`, `weft workflow show FILE` and `weft exec FILE --input JSON [--max-visits N]`: check an
 * executable workflow with every problem located, draw it (text, Mermaid, DOT, WorfBench text), and run it on one
 * input with no model. The batch mode of `weft exec` is exec-batch-command.ts.
 */
import { existsSync } from 'node:fs';
import {
  checkWorkflowFile,
  formatWorkflowText,
  inertText,
  loadToolsFile,
  loadWorkflowFile,
  runWorkflowIsolated,
  type ToolSet,
  WeftError,
  workflowDot,
  workflowListing,
  workflowMermaid,
  type WorkflowProblem,
  workflowToWorfText,
} from '../../internal.js';
import { loadContext } from '../context.js';
import { integerFlag } from '../flags.js';
import { type IsolationFlags, type IsolationLimits, isolationLimits } from './isolation-limits.js';
import type { Output } from '../output.js';

interface WorkflowFlags {
  readonly tools?: string;
  readonly json?: boolean;
}

export async function workflowCheckCommand(
  file: string,
  flags: WorkflowFlags,
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const tools = await openTools(flags.tools, signal);
  try {
    const toolNames = tools?.tools.map((tool) => tool.name);
    const { problems } = await checkWorkflowFile(file, toolNames ? { toolNames } : {});
    const errors = problems.filter((problem) => problem.severity === 'error').length;
    if (output.json) {
      output.document({ ok: errors === 0, problems: problems.map(shown), toolsChecked: tools !== undefined });
    } else {
      for (const problem of problems) output.text(`${where(file, problem)} ${problem.severity}: ${problem.message}`);
      if (!tools) output.text(`${file}: tools not checked: no --tools`);
      output.text(
        problems.length === 0 ? `${file}: ok` : `${file}: ${errors} errors, ${problems.length - errors} warnings`,
      );
    }
    return errors > 0 ? 2 : 0;
  } finally {
    await tools?.close();
  }
}

interface WorkflowShowFlags {
  readonly mermaid?: boolean;
  readonly dot?: boolean;
  readonly worfbench?: boolean;
}

/** One view at a time: the listing by default, or one of the drawings. */
export async function workflowShowCommand(file: string, flags: WorkflowShowFlags, output: Output): Promise<number> {
  const chosen = (['mermaid', 'dot', 'worfbench'] as const).filter((view) => flags[view]);
  if (chosen.length > 1) {
    throw new WeftError('BAD_INPUT', `choose one of --mermaid, --dot and --worfbench, not ${chosen.length}`, {
      location: { field: `--${chosen[1]}` },
    });
  }
  const { workflow } = await loadWorkflowFile(file);
  const view = chosen[0];
  const drawing =
    view === 'mermaid'
      ? workflowMermaid(workflow)
      : view === 'dot'
        ? workflowDot(workflow)
        : view === 'worfbench'
          ? formatWorkflowText(workflowToWorfText(workflow))
          : undefined;
  if (output.json) {
    output.document({
      name: workflow.name,
      nodes: workflow.nodes,
      edges: workflow.edges,
      ...(view !== undefined ? { [view]: drawing } : {}),
    });
  } else {
    // The drawings end with a line break of their own; output.text adds one. A tool name or an expression may hold
    // escape sequences that Mermaid's and DOT's escaping leave alone (C1 controls, bidi overrides): shown inert.
    output.text(drawing === undefined ? workflowListing(workflow) : inertText(drawing.replace(/\n$/, '')));
  }
  return 0;
}

export async function execCommand(
  file: string,
  flags: WorkflowFlags &
    IsolationFlags & { readonly input?: string; readonly maxVisits?: string; readonly home?: string },
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const input = parseInput(flags.input);
  const maxVisits = integerFlag('max-visits', flags.maxVisits, { min: 1 });
  const limits = isolationLimits(flags, (await loadContext(flags)).config);
  const tools = await openTools(flags.tools, signal, limits);
  try {
    const toolNames = tools?.tools.map((tool) => tool.name) ?? [];
    const { workflow } = await loadWorkflowFile(file, { toolNames });
    const result = await runWorkflowIsolated(workflow, {
      tools: tools?.tools ?? [],
      input,
      signal,
      ...(maxVisits !== undefined ? { maxVisits } : {}),
      ...limits,
    });
    if (output.json)
      output.document({ output: result.output, steps: result.steps, toolCalls: result.toolCalls.length, llmCalls: 0 });
    else {
      output.text(JSON.stringify(result.output, null, 2));
      output.log(`${result.steps} steps, ${result.toolCalls.length} tool calls, 0 model calls`);
    }
    return 0;
  } finally {
    await tools?.close();
  }
}

function parseInput(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WeftError('BAD_INPUT', `--input is not JSON: ${(error as Error).message}`, {
      location: { field: '--input' },
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WeftError('BAD_INPUT', '--input must be a JSON object', { location: { field: '--input' } });
  }
  return value as Record<string, unknown>;
}

/** The tools file; with `limits` (weft exec's), its workflow tools run with the case's own. */
async function openTools(
  path: string | undefined,
  signal: AbortSignal,
  limits?: IsolationLimits,
): Promise<ToolSet | undefined> {
  if (path === undefined) return undefined;
  if (!existsSync(path)) throw new WeftError('BAD_INPUT', `no tools file ${path}`, { location: { field: '--tools' } });
  return loadToolsFile(path, { signal, ...(limits ? { workflowLimits: limits } : {}) });
}

function where(file: string, problem: WorkflowProblem): string {
  const place = problem.line !== undefined ? `${file}:${problem.line}:${problem.column ?? 1}` : file;
  return problem.path ? `${place} ${problem.path}:` : `${place}:`;
}

function shown(problem: WorkflowProblem) {
  return {
    severity: problem.severity,
    line: problem.line ?? null,
    column: problem.column ?? null,
    path: problem.path ?? null,
    ...(problem.node ? { node: problem.node } : {}),
    message: problem.message,
  };
}
