/**
 * The FlowMind paper's single-stage baselines (`SolveAndBuild` in stage-types.ts): one agent with both tool sets at
 * once — the business tools and the graph tools — solves the instance and builds the workflow in one conversation.
 * ReAct (`mode: 'react'`) starts at once; P&E (`plan-execute`) first plans its steps (a JSON array of strings, read
 * robustly: plain, extracted from prose, repaired, re-prompted), then works through them. Its business calls form
 * the trace, recorded with the loop's hooks as the execute stage records them (tool, arguments redacted, ok, result
 * or error, duration). Its final answer is read exactly as the execute stage reads its own (final-answer.ts, with
 * the same bounded re-prompt), so that the baselines and the ES variants are compared on the method alone.
 *
 * Mixed tool invocation (the paper's MTI: business and graph tools used within one reasoning phase), counted here
 * as: a business call made in a reply that also calls a graph tool, or made after any graph call. So building the
 * graph only once the instance is solved counts nothing; interleaving, front-loading the graph, or going back to
 * execution after starting the graph counts each business call concerned.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { listOrWrapped } from './list-or-wrapped.js';
import { isWeftError, WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { sameJson } from '../text/same-json.js';
import type { CallTag, ChatMessage } from '../llm/chat-model.js';
import { generateStructured, repairPrompt } from '../llm/structured-output.js';
import { newRunId } from '../store/run-id.js';
import type { NewTrace, TraceToolCall } from '../store/traces.js';
import { redactToolArgs } from '../tools/redact-tool-args.js';
import { runToolLoop } from '../tools/tool-loop.js';
import { checkWorkflow } from './check-workflow.js';
import { singleStageSystemPrompt, toolLines } from './distill-prompt.js';
import { DEFAULT_DISTILL_MAX_STEPS, workflowName } from './distill-traces.js';
import { parseFinalAnswer, readWithRepairs } from './final-answer.js';
import { createGraphBuilder, GRAPH_OPERATIONS } from './graph-builder.js';
import { applyGraphCall, graphTools } from './graph-tools.js';
import { SOLVE_MAX_REPAIRS } from './solve.js';
import { stepLimitedModel } from './step-limited-model.js';
import type { DistillResult, SolveAndBuild, SolveOptions } from './stage-types.js';

const stepsSchema = listOrWrapped('steps', z.array(z.string().min(1)).min(1).max(200));

export const solveAndBuild: SolveAndBuild = async (options: SolveOptions & { readonly name?: string }) => {
  const maxSteps = options.maxSteps ?? DEFAULT_DISTILL_MAX_STEPS;
  integerOption(maxSteps, 'maxSteps', { min: 1 });
  const clash = options.tools.find((tool) => (GRAPH_OPERATIONS as readonly string[]).includes(tool.name));
  if (clash) {
    throw new WeftError(
      'BAD_INPUT',
      `the business tool "${clash.name}" (${clash.source}) has the name of a graph tool; the single-stage baselines need the two sets apart`,
      { location: { field: 'tools' } },
    );
  }
  const mode = options.mode ?? 'react';
  const name = workflowName(options.name ?? options.taskKey);
  const toolNames = options.tools.map((tool) => tool.name);
  const builder = createGraphBuilder({ name, toolNames });
  // The agent answers after `finish`: the loop is not stopped there, only at the deadline.
  const limited = stepLimitedModel(options.model, maxSteps);
  const model = limited.model;
  const tag: CallTag = { purpose: 'distill', ...(options.taskKey ? { key: options.taskKey } : {}) };
  const business = new Map(options.tools.map((tool) => [tool.name, tool]));
  const system = singleStageSystemPrompt(options.tools, options.input, mode);
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: [
        'Task:',
        options.task.trim(),
        '',
        `Input: ${JSON.stringify(options.input)}`,
        '',
        'Business tools:',
        ...toolLines(options.tools),
      ].join('\n'),
    },
  ];
  const calls: TraceToolCall[] = [];
  const kinds: { step: number; sequence: number; graph: boolean }[] = [];
  let plan: string[] | undefined;
  let answer: unknown;
  let answered = false;
  let error: string | undefined;
  const signal = options.signal;

  try {
    if (mode === 'plan-execute') {
      try {
        const planned = await generateStructured(
          model,
          {
            system: `${system}\n\nFirst plan: reply with only a JSON array of strings, one per step (the business calls to make, then the graph to build). Do not call tools now.`,
            messages,
            tag,
          },
          stepsSchema,
          signal ? { signal } : {},
        );
        plan = planned.value;
        messages.push(
          { role: 'assistant', content: JSON.stringify(plan) },
          { role: 'user', content: 'Now carry out the plan with the tools.' },
        );
      } catch (caught) {
        if (!(isWeftError(caught) && caught.code === 'PARSE')) throw caught;
        messages.push({ role: 'user', content: 'No usable plan came back; go on with the tools.' });
      }
    }
    const applyGraph = applyGraphCall(builder);
    const result = await runToolLoop({
      model,
      call: { system, messages, tag },
      tools: [...options.tools, ...graphTools(builder)],
      maxSteps: maxSteps + 1,
      hooks: {
        replay: (call) => {
          const applied = applyGraph(call);
          if (applied) kinds.push({ step: call.step, sequence: call.sequence, graph: true });
          return applied;
        },
        onCallEnd: (call, outcome) => {
          if (!business.has(call.name)) return;
          kinds.push({ step: call.step, sequence: call.sequence, graph: false });
          calls.push({
            tool: call.name,
            args: redactToolArgs(call.tool, call.args),
            ok: outcome.ok,
            ...(outcome.ok ? { result: outcome.result } : { error: outcome.error }),
            durationMs: Math.round(outcome.durationMs),
          });
        },
      },
      ...(signal ? { signal } : {}),
    });
    let conversation: ChatMessage[] = [...result.messages];
    const read = await readWithRepairs(
      result.text,
      parseFinalAnswer,
      async (problem) => {
        // The same re-prompt, without tools, as the execute stage's (solve.ts).
        const asked: ChatMessage[] = [...conversation, { role: 'user', content: repairPrompt(problem) }];
        const reply = await model.generate({ system, messages: asked, tag }, signal);
        conversation = [...asked, { role: 'assistant', content: reply.text }];
        return reply.text;
      },
      SOLVE_MAX_REPAIRS,
    );
    if (read.ok) answer = read.value;
    else error = `the answer could not be read: ${read.error}; the last reply: ${clipJson(read.reply)}`;
    answered = read.ok;
  } catch (caught) {
    if (limited.stopped() !== undefined) error = `no final answer after ${maxSteps} model calls (the step limit)`;
    else if (isWeftError(caught) && caught.code === 'BUDGET') {
      // The caller's budget (a command-wide --max-calls …): what was done is kept, the caller says why it ended.
      error = `stopped by the budget: ${caught.message}`;
    } else if (isWeftError(caught) && caught.code !== 'ABORTED' && caught.code !== 'INTERNAL') {
      error = `the model failed: ${caught.message}`;
    } else throw caught;
  }

  const correct = options.expected === undefined || sameJson(answer, options.expected);
  if (answered && !correct && error === undefined)
    error = `the answer ${clipJson(answer)} is not the expected ${clipJson(options.expected)}`;
  if (!answered && error === undefined) error = 'no final answer';
  const { calls: used, inputTokens, outputTokens } = limited.meter;
  const usage = { calls: used, inputTokens, outputTokens };
  const trace: NewTrace = {
    // `t-` + a run id + two more random bytes: many instances can be solved in one second.
    traceId: `t-${newRunId()}${randomBytes(2).toString('hex')}`,
    task: options.task,
    ...(options.taskKey ? { taskKey: options.taskKey } : {}),
    mode,
    model: options.model.id,
    input: options.input,
    ...(options.toolsPath ? { toolsPath: options.toolsPath } : {}),
    ...(plan ? { plan } : {}),
    calls,
    ...(answer !== undefined ? { answer } : {}),
    ...(options.expected !== undefined ? { expected: options.expected } : {}),
    success: answered && correct,
    ...(error !== undefined ? { error } : {}),
    usage,
  };
  const workflow = builder.workflow;
  const problems = await checkWorkflow(workflow, { toolNames });
  const graphCalls = kinds.filter((kind) => kind.graph).length;
  const distill: DistillResult = {
    workflow,
    finished: builder.finished,
    problems,
    valid: !problems.some((problem) => problem.severity === 'error'),
    mixedCalls: mixedCalls(kinds),
    graphCalls,
    steps: used,
    usage,
    ...(builder.finished ? {} : { error: error ?? 'the agent never called finish: no workflow was built' }),
  };
  return { trace, distill };
};

/** Business calls in a reply that also calls a graph tool, or after any graph call (see the file's comment). */
export function mixedCalls(kinds: readonly { step: number; sequence: number; graph: boolean }[]): number {
  const graphSteps = new Set(kinds.filter((kind) => kind.graph).map((kind) => kind.step));
  const firstGraph = Math.min(...kinds.filter((kind) => kind.graph).map((kind) => kind.sequence));
  return kinds.filter((kind) => !kind.graph && (graphSteps.has(kind.step) || kind.sequence > firstGraph)).length;
}

function clipJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
