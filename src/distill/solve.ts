/**
 * The execute stage of FlowMind's execute-summarize pipeline: an agent solves one concrete instance of a task with business tools
 * only, and what it did becomes a trace (store/traces.ts) — returned, not saved; the caller saves it.
 *
 * - `react`: one bounded tool loop (tools/tool-loop.ts) from the task and the inputs, ending in the answer.
 * - `plan-execute`: a planning call (the plan as a JSON list of steps), then each step as a user message of the
 *   same conversation with its own tool loop, then a request for the final answer.
 *
 * The final answer is read by final-answer.ts (the parser every variant of the comparison shares: JSON, JSON in a
 * fence or in prose, a scalar after "the answer is"), the plan as JSON (plain, extracted from mixed text,
 * repaired); either is re-prompted with the error a bounded number of times; no JSON mode is forced. `maxSteps` bounds the model
 * calls of the whole solve, re-prompts included: it is a deadline, past which the trace ends unsuccessful with an
 * error that says so. A model or provider failure ends the trace the same way; only an abort is thrown.
 */
import { z } from 'zod';
import { WeftError, isWeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatMessage } from '../llm/chat-model.js';
import { redactModelSpec } from '../llm/model-spec.js';
import { parseJsonValues } from '../llm/extract-json.js';
import { interpretReply, type ReplyOutcome, repairPrompt } from '../llm/structured-output.js';
import { MAX_STORED_DEPTH } from '../store/json-blobs.js';
import { MAX_TRACE_ARGS_CHARS, traceValue } from '../store/trace-value.js';
import { newTraceId, type NewTrace, type TraceToolCall } from '../store/traces.js';
import { sameJson } from '../text/same-json.js';
import { redactToolArgs } from '../tools/redact-tool-args.js';
import { runToolLoop, type ToolLoopHooks } from '../tools/tool-loop.js';
import { parseFinalAnswer, readWithRepairs } from './final-answer.js';
import { scrubSecretValues, secretValuesOf } from './scrub-secret-values.js';
import type { SolveOptions } from './stage-types.js';
import { stepLimitedModel } from './step-limited-model.js';
import { FINAL_REQUEST, planRequest, REACT_START, solveSystemPrompt, stepMessage } from './solve-prompts.js';

/** Model calls a solve may make when the caller gives no `maxSteps`. */
export const DEFAULT_SOLVE_MAX_STEPS = 20;
/** Re-prompts after an answer or a plan that does not parse (each one a model call within `maxSteps`). */
export const SOLVE_MAX_REPAIRS = 2;
/** Steps of a plan that are carried out; a longer plan is cut (a runaway reply must not mean a runaway solve). */
export const MAX_PLAN_STEPS = 50;

const PLAN = z.array(z.string().min(1)).min(1);

/** How deeply an input may nest: what a store keeps (MAX_STORED_DEPTH), less the levels of the trace around it. */
export const MAX_INPUT_DEPTH = MAX_STORED_DEPTH - 8;

/** How deeply a JSON value nests (a scalar: 0), without recursion, stopping once past MAX_INPUT_DEPTH. */
function nestingOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_INPUT_DEPTH) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

export async function solveTask(options: SolveOptions): Promise<NewTrace> {
  const maxSteps = options.maxSteps ?? DEFAULT_SOLVE_MAX_STEPS;
  integerOption(maxSteps, 'maxSteps', { min: 1 });
  if (typeof options.input !== 'object' || options.input === null || Array.isArray(options.input)) {
    throw new WeftError('BAD_INPUT', 'The input must be a JSON object', { location: { field: 'input' } });
  }
  if (nestingOf(options.input) > MAX_INPUT_DEPTH) {
    // Refused before any model call: the trace could not be stored (json-blobs.ts MAX_STORED_DEPTH).
    throw new WeftError('BAD_INPUT', `The input nests deeper than ${MAX_INPUT_DEPTH} levels`, {
      location: { field: 'input' },
    });
  }
  if (options.rollout !== undefined) integerOption(options.rollout, 'rollout', { min: 1 });
  const mode = options.mode ?? 'react';
  const traceId = newTraceId();
  // The step limit is a call budget on the runtime meter (step-limited-model.ts); its own refusal is told apart
  // from a BUDGET error of the caller's model (a command-wide budget).
  const limited = stepLimitedModel(options.model, maxSteps);
  const { model, meter: counter } = limited;
  const calls: { sequence: number; call: TraceToolCall }[] = [];
  const tag = {
    purpose: 'solve' as const,
    key: options.taskKey ?? traceId,
    ...(options.rollout !== undefined ? { attempt: options.rollout } : {}),
  };
  const system = solveSystemPrompt(options.task, options.input);
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  let step: number | undefined;
  // The calls of one reply run at once and end in any order; the trace keeps the order the model asked for them.
  let sequenceBase = 0;
  let plan: string[] | undefined;

  // Values passed as secret arguments: kept out of the whole trace, not only out of those calls' arguments.
  const secrets = new Set<string>();
  const hooks: ToolLoopHooks = {
    onCallEnd(call, outcome) {
      if (call.tool) for (const secret of secretValuesOf(byName.get(call.name), call.args)) secrets.add(secret);
      // Bounded: a model's runaway arguments (or a tool's deep result) must not make the whole trace unstorable.
      const args = traceValue(
        call.tool ? redactToolArgs(byName.get(call.name), call.args) : call.args,
        MAX_TRACE_ARGS_CHARS,
      );
      calls.push({
        sequence: call.sequence + sequenceBase,
        call: {
          tool: call.name,
          args,
          ok: outcome.ok,
          ...(outcome.ok ? { result: traceValue(outcome.result) } : { error: outcome.error }),
          durationMs: outcome.durationMs,
          // Plan-execute: the plan step; react: the model reply that asked for it (the trace page's step column).
          step: step ?? call.step,
        },
      });
    },
  };

  /** One bounded tool loop; its limit leaves at least the forced answer within the remaining calls. */
  const loop = async (messages: readonly ChatMessage[]) => {
    const remaining = maxSteps - counter.calls;
    sequenceBase = calls.length;
    return runToolLoop({
      model,
      call: { system, messages, tag },
      tools: options.tools,
      maxSteps: Math.max(1, remaining - 1),
      hooks,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  };

  /** Reads `text` with `read`, re-prompting (without tools) with the error a bounded number of times. */
  const parse = async <T>(
    text: string,
    messages: ChatMessage[],
    read: (reply: string) => { ok: true; value: T } | { ok: false; error: string },
    what: string,
  ): Promise<{ ok: true; value: T } | { ok: false; error: string }> => {
    const outcome = await readWithRepairs(
      text,
      read,
      async (problem) => {
        messages.push({ role: 'user', content: repairPrompt(problem) });
        const result = await model.generate({ system, messages: [...messages], tag }, options.signal);
        messages.push({ role: 'assistant', content: result.text });
        return result.text;
      },
      SOLVE_MAX_REPAIRS,
    );
    if (outcome.ok) return outcome;
    return {
      ok: false,
      error: `the ${what} could not be read: ${outcome.error}; the last reply: ${clipJson(outcome.reply)}`,
    };
  };
  const readAnswer = (reply: string) => {
    const parsed = parseFinalAnswer(reply);
    return parsed.ok ? { ok: true as const, value: parsed.value } : parsed;
  };
  const readPlan = (reply: string) => lastJsonValue(reply, PLAN);

  let answer: unknown;
  let answered = false;
  let error: string | undefined;
  try {
    let messages: ChatMessage[];
    if (mode === 'react') {
      const result = await loop([{ role: 'user', content: REACT_START }]);
      messages = [...result.messages];
      const parsed = await parse(result.text, messages, readAnswer, 'answer');
      if (parsed.ok) [answer, answered] = [traceValue(parsed.value), true];
      else error = parsed.error;
    } else {
      messages = [{ role: 'user', content: planRequest(options.tools) }];
      const first = await model.generate({ system, messages: [...messages], tag }, options.signal);
      messages.push({ role: 'assistant', content: first.text });
      const parsedPlan = await parse(first.text, messages, readPlan, 'plan');
      if (!parsedPlan.ok) {
        error = parsedPlan.error;
      } else {
        plan = parsedPlan.value.slice(0, MAX_PLAN_STEPS);
        for (const [index, text] of plan.entries()) {
          step = index;
          const result = await loop([...messages, { role: 'user', content: stepMessage(index, plan.length, text) }]);
          messages = [...result.messages];
        }
        step = plan.length;
        const result = await loop([...messages, { role: 'user', content: FINAL_REQUEST }]);
        messages = [...result.messages];
        const parsed = await parse(result.text, messages, readAnswer, 'answer');
        if (parsed.ok) [answer, answered] = [traceValue(parsed.value), true];
        else error = parsed.error;
      }
    }
  } catch (failure) {
    if (limited.stopped() !== undefined) {
      error = `no answer within ${maxSteps} model call${maxSteps === 1 ? '' : 's'} (the solve's limit; raise it with --max-steps)`;
    } else if (isWeftError(failure) && failure.code === 'BUDGET') {
      // The caller's budget (a command-wide --max-calls, --timeout …): the calls made so far are kept in the trace.
      error = `stopped by the budget before an answer: ${failure.message}`;
    } else if ((isWeftError(failure) && failure.code === 'ABORTED') || options.signal?.aborted) {
      if (!options.keepOnAbort) throw failure;
      error = 'cancelled before an answer (the calls made so far are kept)';
    } else {
      error = `the solve failed: ${failure instanceof Error ? failure.message : String(failure)}`;
    }
  }

  const matches = !answered || options.expected === undefined || sameJson(answer, options.expected);
  if (answered && !matches) {
    error = `the answer ${clipJson(answer)} is not the expected ${clipJson(options.expected)}`;
  }
  const trace: NewTrace = {
    traceId,
    task: options.task,
    ...(options.taskKey !== undefined ? { taskKey: options.taskKey } : {}),
    mode,
    model: redactModelSpec(options.model.id),
    input: options.input,
    ...(options.toolsPath !== undefined ? { toolsPath: options.toolsPath } : {}),
    ...(plan !== undefined ? { plan } : {}),
    calls: calls.sort((a, b) => a.sequence - b.sequence).map((entry) => entry.call),
    ...(answered ? { answer } : {}),
    ...(options.expected !== undefined ? { expected: options.expected } : {}),
    success: answered && matches,
    ...(error !== undefined ? { error } : {}),
    usage: {
      calls: counter.calls,
      inputTokens: counter.inputTokens,
      outputTokens: counter.outputTokens,
      ...(counter.costUsd > 0 ? { costUsd: counter.costUsd } : {}),
    },
  };
  if (secrets.size === 0) return trace;
  const scrub = <T>(value: T): T => scrubSecretValues(value, secrets);
  return {
    ...trace,
    task: scrub(trace.task),
    input: scrub(trace.input),
    ...(trace.plan !== undefined ? { plan: scrub(trace.plan) } : {}),
    calls: trace.calls.map((call) => ({
      ...call,
      args: scrub(call.args),
      ...(call.result !== undefined ? { result: scrub(call.result) } : {}),
      ...(call.error !== undefined ? { error: scrub(call.error) } : {}),
    })),
    ...('answer' in trace ? { answer: scrub(trace.answer) } : {}),
    ...(trace.expected !== undefined ? { expected: scrub(trace.expected) } : {}),
    ...(trace.error !== undefined ? { error: scrub(trace.error) } : {}),
  };
}

/**
 * The JSON value of a reply that ends the latest in its text and fits `schema` (the answer comes last; prose before
 * it may quote other JSON), values parsed as they are before repaired ones; `interpretReply`'s error when none fits.
 */
function lastJsonValue<T>(text: string, schema: z.ZodType<T>): ReplyOutcome<T> {
  const values = parseJsonValues(text);
  const end = (candidate: { text: string }) => {
    const at = text.lastIndexOf(candidate.text);
    return at < 0 ? -1 : at + candidate.text.length;
  };
  const ordered = [
    ...values.filter((v) => v.source !== 'repaired').sort((a, b) => end(b) - end(a)),
    ...values.filter((v) => v.source === 'repaired').sort((a, b) => end(b) - end(a)),
  ];
  for (const candidate of ordered) {
    const parsed = schema.safeParse(candidate.value);
    if (parsed.success) return { ok: true, value: parsed.data };
  }
  return interpretReply(text, schema);
}

function clipJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
