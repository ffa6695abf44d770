/**
 * The bounded tool loop: a model is offered tools, its tool calls run through `callTool`, their results
 * go back to it as `tool` messages, until it answers without tool calls or the step limit is reached. Generic on
 * purpose: subtasks of tool-using roles, conversational procedures and FlowMind's execute stage share it; what
 * each records, replays or refuses goes through the hooks.
 *
 * Every mistake of the model (an unknown tool, arguments that are not JSON or do not fit the schema) and every
 * failure of a tool (an error, a timeout) comes back to the model as an `isError` tool message and the loop goes
 * on. Only the caller's abort and a hook's refusal (a spent budget) end it with an exception.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';
import { WeftError, isWeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatCall, ChatMessage, ChatModel, ToolCallRequest, ToolDeclaration, Usage } from '../llm/chat-model.js';
import { startToolSpan } from '../llm/telemetry.js';
import { type CallToolOptions, callTool } from './call-tool.js';
import { redactToolArgs } from './redact-tool-args.js';
import type { JsonValue, Tool } from './tool.js';
import { clip } from '../text/clip.js';

export const DEFAULT_MAX_TOOL_STEPS = 8;

/**
 * Tool calls run from one reply. A model that asks for more (a runaway or hostile reply) gets an error result for
 * each call beyond it instead of that many calls at once.
 */
export const MAX_TOOL_CALLS_PER_STEP = 32;

/** One tool call the model asked for, as the hooks see it. */
export interface ToolLoopCall {
  /** Its number among this loop's tool calls, from 0, in the order the model asked for them: stable on replay. */
  readonly sequence: number;
  /** The model call (step, from 0) that asked for it. */
  readonly step: number;
  /** The provider's id of the call. */
  readonly id: string;
  readonly name: string;
  /** The arguments as the model sent them (a string when they were not JSON). */
  readonly args: unknown;
  /** The tool it names; undefined for an unknown name. */
  readonly tool: Tool | undefined;
}

/** What a call came to: what the model sees and what a log records (and a resume replays). */
export type ToolLoopOutcome =
  | { readonly ok: true; readonly result: JsonValue; readonly truncated?: true; readonly durationMs: number }
  | {
      readonly ok: false;
      /** The message the model sees. */
      readonly error: string;
      /** `TOOL`, `TIMEOUT`, or `BAD_CALL` for an unknown tool or arguments that are not JSON. */
      readonly code: string;
      readonly durationMs: number;
    };

export interface ToolLoopHooks {
  /**
   * A recorded outcome of this call (a resumed run): returned to the model as is; the call is not made, not
   * admitted and not recorded again. May throw to fail the loop (a call that may have run and must not be
   * repeated).
   */
  readonly replay?: (call: ToolLoopCall) => ToolLoopOutcome | undefined | Promise<ToolLoopOutcome | undefined>;
  /** Throws to refuse the call (a budget); the loop ends with that error. */
  readonly admit?: (call: ToolLoopCall) => void | Promise<void>;
  /** Awaited before the call runs: write-ahead, so a process killed during the call leaves its start on record. */
  readonly onCallStart?: (call: ToolLoopCall) => void | Promise<void>;
  readonly onCallEnd?: (call: ToolLoopCall, outcome: ToolLoopOutcome) => void | Promise<void>;
}

export interface ToolLoopOptions {
  readonly model: ChatModel;
  /** The conversation so far and the call's tag; `tools` and `toolChoice` are the loop's. */
  readonly call: Omit<ChatCall, 'tools' | 'toolChoice'>;
  readonly tools: readonly Tool[];
  /** Model calls that may ask for tools (default 8); one more call, with `toolChoice: 'none'`, follows the last. */
  readonly maxSteps?: number;
  readonly hooks?: ToolLoopHooks;
  /** Passed to every `callTool` (timeouts, retries, the result cap); the signal is the loop's. */
  readonly callOptions?: Omit<CallToolOptions, 'signal'>;
  readonly signal?: AbortSignal;
}

export interface ToolLoopRecord {
  readonly call: ToolLoopCall;
  readonly outcome: ToolLoopOutcome;
  readonly replayed: boolean;
}

export interface ToolLoopResult {
  /** The model's final answer. */
  readonly text: string;
  /** Every tool call, in sequence order. */
  readonly calls: readonly ToolLoopRecord[];
  /** Model calls made (or replayed). */
  readonly steps: number;
  /** `answer`: the model answered without tool calls; `max-steps`: the limit forced an answer without tools. */
  readonly stoppedBy: 'answer' | 'max-steps';
  readonly usage: Usage;
  /** The whole conversation, the final answer included. */
  readonly messages: readonly ChatMessage[];
}

/** How a tool is declared to models. */
export function toolDeclaration(tool: Tool): ToolDeclaration {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_TOOL_STEPS;
  integerOption(maxSteps, 'maxSteps', { min: 1 });
  const byName = new Map<string, Tool>();
  for (const tool of options.tools) {
    if (byName.has(tool.name)) {
      throw new WeftError(
        'BAD_INPUT',
        `Two tools are named "${tool.name}" (${byName.get(tool.name)!.source}, ${tool.source})`,
        {
          location: { field: 'tools' },
        },
      );
    }
    byName.set(tool.name, tool);
  }
  const declarations = options.tools.map(toolDeclaration);
  const hooks = options.hooks ?? {};
  const { signal } = options;
  // Each of a reply's concurrent calls listens for the abort: up to MAX_TOOL_CALLS_PER_STEP at once is expected,
  // not the leak Node warns about on stderr past 10.
  if (signal && getMaxListeners(signal) < MAX_TOOL_CALLS_PER_STEP + 10)
    setMaxListeners(MAX_TOOL_CALLS_PER_STEP + 10, signal);
  const messages: ChatMessage[] = [...options.call.messages];
  const records: ToolLoopRecord[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let sequence = 0;

  for (let step = 0; ; step++) {
    const last = step === maxSteps;
    throwIfAborted(signal);
    const reply = await options.model.generate(
      {
        ...options.call,
        messages: [...messages],
        ...(declarations.length > 0 ? { tools: declarations, toolChoice: last ? 'none' : 'auto' } : {}),
      },
      signal,
    );
    usage.inputTokens += reply.usage.inputTokens;
    usage.outputTokens += reply.usage.outputTokens;
    const requested = uniqueIds(reply.toolCalls ?? [], messages);
    // Calls asked for in the forced last answer are not run: the model was told it may not call tools.
    if (requested.length === 0 || last || declarations.length === 0) {
      messages.push({ role: 'assistant', content: reply.text });
      return {
        text: reply.text,
        calls: records,
        steps: step + 1,
        stoppedBy: last ? 'max-steps' : 'answer',
        usage,
        messages,
      };
    }
    messages.push({ role: 'assistant', content: reply.text, toolCalls: requested });
    const calls = requested.map(
      (request): ToolLoopCall => ({
        sequence: sequence++,
        step,
        id: request.id,
        name: request.name,
        args: request.args,
        tool: byName.get(request.name),
      }),
    );
    // The calls of one step run at once (models ask for several when they are independent); results keep order.
    // All of them settle before a refusal or an abort ends the loop: a call already running still has its end
    // recorded, instead of finishing (its side effect done) after the run has ended.
    const results = await Promise.allSettled(
      calls.map((call, index) =>
        index < MAX_TOOL_CALLS_PER_STEP
          ? runOne(call, byName, hooks, options.callOptions, signal)
          : {
              call,
              outcome: badCall(
                `Not run: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls are run from one answer (this one asked for ${calls.length})`,
              ),
              replayed: false,
            },
      ),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const settled = results.map((result) => (result as PromiseFulfilledResult<ToolLoopRecord>).value);
    for (const record of settled) {
      records.push(record);
      messages.push(toolMessage(record.call, record.outcome));
    }
  }
}

async function runOne(
  call: ToolLoopCall,
  byName: ReadonlyMap<string, Tool>,
  hooks: ToolLoopHooks,
  callOptions: ToolLoopOptions['callOptions'],
  signal: AbortSignal | undefined,
): Promise<ToolLoopRecord> {
  const recorded = await hooks.replay?.(call);
  if (recorded) return { call, outcome: recorded, replayed: true };
  await hooks.admit?.(call);
  throwIfAborted(signal);
  await hooks.onCallStart?.(call);
  const span = startToolSpan({ name: call.name, callId: call.id, args: redactToolArgs(call.tool, call.args) });
  let outcome: ToolLoopOutcome;
  try {
    outcome = await span.run(() => outcomeOf(call, byName, callOptions, signal));
  } catch (error) {
    // Only the caller's abort throws here.
    span.end({ ok: false, error: error instanceof Error ? error.message : String(error), code: 'ABORTED' });
    throw error;
  }
  span.end(outcome);
  await hooks.onCallEnd?.(call, outcome);
  return { call, outcome, replayed: false };
}

async function outcomeOf(
  call: ToolLoopCall,
  byName: ReadonlyMap<string, Tool>,
  callOptions: ToolLoopOptions['callOptions'],
  signal: AbortSignal | undefined,
): Promise<ToolLoopOutcome> {
  const tool = call.tool;
  if (!tool) {
    const known = [...byName.keys()].join(', ') || 'none';
    // The name is the model's: a runaway one is not echoed whole into the next prompt.
    return badCall(`There is no tool named ${clip(JSON.stringify(call.name), 80)}; the tools are: ${known}`);
  }
  if (typeof call.args === 'string') {
    return badCall(`${tool.name}: the arguments are not a JSON object (${clip(call.args, 200)}); send a JSON object`);
  }
  const outcome = await callTool(tool, (call.args ?? {}) as JsonValue, {
    ...callOptions,
    ...(signal ? { signal } : {}),
  });
  if (outcome.ok) {
    return {
      ok: true,
      result: outcome.result,
      ...(outcome.truncated ? { truncated: true as const } : {}),
      durationMs: outcome.durationMs,
    };
  }
  return { ok: false, error: outcome.error.message, code: outcome.error.code, durationMs: outcome.durationMs };
}

/**
 * The calls with ids unique in the conversation: a model that gives one id twice would have its results mixed up,
 * and providers refuse a conversation holding a duplicate (a 400 on every later call). A repeat gets a suffix.
 */
function uniqueIds(requested: readonly ToolCallRequest[], messages: readonly ChatMessage[]): ToolCallRequest[] {
  const used = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) used.add(call.id);
  }
  return requested.map((request) => {
    let id = request.id;
    for (let n = 2; used.has(id); n++) id = `${request.id}_${n}`;
    used.add(id);
    return id === request.id ? request : { ...request, id };
  });
}

function badCall(error: string): ToolLoopOutcome {
  return { ok: false, error, code: 'BAD_CALL', durationMs: 0 };
}

/** The `tool` message a call's outcome becomes: the result as JSON text (a string result as is), or the error. */
export function toolMessage(call: Pick<ToolLoopCall, 'id' | 'name'>, outcome: ToolLoopOutcome): ChatMessage {
  if (!outcome.ok) return { role: 'tool', toolCallId: call.id, name: call.name, content: outcome.error, isError: true };
  const content = typeof outcome.result === 'string' ? outcome.result : JSON.stringify(outcome.result);
  return { role: 'tool', toolCallId: call.id, name: call.name, content };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  const reason: unknown = signal.reason;
  if (isWeftError(reason)) throw reason;
  throw new WeftError('ABORTED', 'The tool loop was aborted', { cause: reason });
}
