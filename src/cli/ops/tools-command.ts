/**
 * `weft tools list` and `weft tools call`: what a tools file provides (a workflow tool with its workflow, the tools
 * it calls and its limits), and one call by hand, for debugging a tools file. A call goes through `callTool` as an agent's would (validation, timeout, retries for
 * idempotent tools, result cap). Bad arguments exit 2 naming the argument; a tool error exits 1 with the error.
 */
import { existsSync } from 'node:fs';
import {
  callTool,
  closestWord,
  type JsonValue,
  loadToolsFile,
  type Tool,
  type ToolSchema,
  type ToolSet,
  WeftError,
  type WorkflowToolInfo,
} from '../../internal.js';
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';

export interface ToolsFlags {
  readonly tools?: string;
  readonly json?: boolean;
}

export interface ToolsCallFlags extends ToolsFlags {
  readonly args?: string;
  readonly timeoutMs?: string;
}

/** Looked for in the working directory when `--tools` is not given. */
const DEFAULT_FILES = ['tools.yaml', 'tools.yml', 'tools.json'];

export async function toolsListCommand(flags: ToolsFlags, output: Output, signal: AbortSignal): Promise<number> {
  const set = await open(flags, signal);
  try {
    if (output.json) {
      output.document({ tools: set.tools.map(describeTool) });
      return 0;
    }
    if (set.tools.length === 0) output.text('no tools');
    for (const tool of set.tools) {
      output.text(`${tool.name}  ${tool.source}${tool.idempotent ? '  (idempotent)' : ''}`);
      output.text(`  ${tool.description.replace(/\s+/g, ' ').trim()}`);
      for (const line of argumentLines(tool.inputSchema, tool.secretArgs ?? [])) output.text(`    ${line}`);
      if (tool.workflow) output.text(`  ${workflowLine(tool.workflow)}`);
    }
    return 0;
  } finally {
    await set.close();
  }
}

export async function toolsCallCommand(
  name: string,
  flags: ToolsCallFlags,
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const args = parseArgs(flags.args);
  const timeoutMs = integerFlag('timeout-ms', flags.timeoutMs, { min: 1 });
  const set = await open(flags, signal);
  try {
    const tool = findTool(set, name, flags.tools);
    const outcome = await callTool(tool, args, { signal, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    if (!outcome.ok) {
      // Refused before the call: the arguments are the user's input here.
      if (outcome.attempts === 0 && outcome.error.code === 'TOOL') {
        const { issues } = outcome.error;
        throw new WeftError('BAD_INPUT', outcome.error.message, {
          location: { field: '--args' },
          // One problem is the message itself; several are listed one by one.
          ...(issues.length > 1 ? { issues } : {}),
        });
      }
      const { error } = outcome;
      output.log(`weft: ${error.message}`);
      if (output.json) {
        output.document({
          tool: tool.name,
          ok: false,
          error: { code: error.code, message: error.message, retryable: error.retryable },
          durationMs: Math.round(outcome.durationMs),
          attempts: outcome.attempts,
        });
      }
      return 1;
    }
    if (outcome.truncated) output.log(`weft: the result was cut to the result size cap`);
    if (output.json) {
      output.document({
        tool: tool.name,
        ok: true,
        result: outcome.result,
        ...(outcome.truncated ? { truncated: true } : {}),
        durationMs: Math.round(outcome.durationMs),
        attempts: outcome.attempts,
      });
    } else {
      output.text(typeof outcome.result === 'string' ? outcome.result : JSON.stringify(outcome.result, null, 2));
    }
    return 0;
  } finally {
    await set.close();
  }
}

async function open(flags: ToolsFlags, signal: AbortSignal): Promise<ToolSet> {
  const file = flags.tools ?? DEFAULT_FILES.find((candidate) => existsSync(candidate));
  if (file === undefined) {
    throw new WeftError('BAD_INPUT', `--tools FILE is required (no ${DEFAULT_FILES.join(', ')} here)`, {
      location: { field: '--tools' },
    });
  }
  return loadToolsFile(file, { signal });
}

function parseArgs(text: string | undefined): JsonValue {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WeftError('BAD_INPUT', `--args expects a JSON object, e.g. '{"id": 1}': ${(error as Error).message}`, {
      location: { field: '--args' },
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WeftError(
      'BAD_INPUT',
      `--args expects a JSON object, got ${Array.isArray(value) ? 'an array' : String(value)}`,
      {
        location: { field: '--args' },
      },
    );
  }
  return value as JsonValue;
}

function findTool(set: ToolSet, name: string, file: string | undefined): Tool {
  const tool = set.tools.find((candidate) => candidate.name === name);
  if (tool) return tool;
  const byLower = new Map(set.tools.map((candidate) => [candidate.name.toLowerCase(), candidate.name]));
  const guess = closestWord(name, [...byLower.keys()]);
  const names = set.tools.map((candidate) => candidate.name);
  throw new WeftError(
    'BAD_INPUT',
    `no tool "${name}"${file ? ` in ${file}` : ''}${guess ? ` (did you mean "${byLower.get(guess)}"?)` : ''}; its tools: ${names.slice(0, 30).join(', ')}${names.length > 30 ? ', …' : ''}`,
  );
}

function describeTool(tool: Tool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    source: tool.source,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    idempotent: tool.idempotent === true,
    ...(tool.secretArgs ? { secretArgs: tool.secretArgs } : {}),
    ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}),
    ...(tool.concurrency !== undefined ? { concurrency: tool.concurrency } : {}),
    ...(tool.maxResultBytes !== undefined ? { maxResultBytes: tool.maxResultBytes } : {}),
    ...(tool.workflow ? { kind: 'workflow', workflow: tool.workflow } : {}),
  };
}

/** `workflow sum_to_n: calls add, multiply (from kit.tools.yaml); deadline 120000 ms, at most 10000 node visits`. */
function workflowLine(workflow: WorkflowToolInfo): string {
  const calls = workflow.calls.length === 0 ? 'calls no tools' : `calls ${workflow.calls.join(', ')}`;
  const from = workflow.toolsFile === undefined ? '' : ` (from ${workflow.toolsFile})`;
  return `workflow ${workflow.name}: ${calls}${from}; deadline ${workflow.timeoutMs} ms, at most ${workflow.maxVisits} node visits`;
}

/** `email: string (required) — The customer's email`, one per top-level argument. */
function argumentLines(schema: ToolSchema, secretArgs: readonly string[]): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const type = Array.isArray(property.enum)
      ? property.enum.map((value) => JSON.stringify(value)).join(' | ')
      : Array.isArray(property.type)
        ? property.type.join(' | ')
        : typeof property.type === 'string'
          ? property.type
          : 'any';
    const notes = [required.has(name) ? 'required' : 'optional', ...(secretArgs.includes(name) ? ['secret'] : [])];
    const description = typeof property.description === 'string' ? ` — ${property.description}` : '';
    return `${name}: ${type} (${notes.join(', ')})${description}`;
  });
}
