/**
 * The summarize stage of FlowMind's execute-summarize pipeline: from one or more traces, a model builds an executable workflow with the
 * graph tools only (graph-tools.ts). ES-P&E (`plan-execute`, the default) first asks for a plan of the graph (a JSON
 * list of nodes, read robustly: plain → extract → repair → re-prompt), then runs the building loop; ES-ReAct
 * (`react`) builds at once.
 *
 * A business tool the model calls here is refused (an error result saying only graph tools work now) and counted:
 * the paper's mixed tool call. Any other unknown name is a plain error. A reply with no tool call before `finish`
 * gets a re-prompt naming what is missing, at most MAX_FINISH_REPROMPTS times. `maxSteps` model calls are a
 * deadline: without an accepted `finish` the result is `finished: false` with the partial graph and an error.
 */
import { z } from 'zod';
import { listOrWrapped } from './list-or-wrapped.js';
import { isWeftError, WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { CallTag, ChatMessage } from '../llm/chat-model.js';
import { generateStructured } from '../llm/structured-output.js';
import { startToolSpan } from '../llm/telemetry.js';
import type { ToolLoopHooks, ToolLoopOutcome } from '../tools/tool-loop.js';
import { runToolLoop } from '../tools/tool-loop.js';
import { clip } from '../text/clip.js';
import { checkWorkflow } from './check-workflow.js';
import { distillSystemPrompt, distillUserPrompt } from './distill-prompt.js';
import { createGraphBuilder, type GraphBuilder, missingParts } from './graph-builder.js';
import { applyGraphCall, graphTools } from './graph-tools.js';
import type { DistillOptions, DistillResult } from './stage-types.js';
import { stepLimitedModel } from './step-limited-model.js';
import { NODE_KINDS } from './workflow.js';

export const DEFAULT_DISTILL_MAX_STEPS = 40;
/** Replies without a tool call (and no `finish`) answered with a re-prompt before the stage gives up. */
export const MAX_FINISH_REPROMPTS = 3;

/** ES-P&E's plan: one entry per node. `{ "nodes": [...] }` is accepted too. */
export const graphPlanSchema = listOrWrapped(
  'nodes',
  z
    .array(
      z.looseObject({
        id: z.string().min(1).max(64),
        kind: z.enum(NODE_KINDS),
        does: z.string().optional(),
        next: z
          .array(
            z.union([
              z.string(),
              z.looseObject({ to: z.string(), when: z.unknown().optional(), default: z.boolean().optional() }),
            ]),
          )
          .optional(),
      }),
    )
    .min(1)
    .max(2_000),
);
export type GraphPlan = z.infer<typeof graphPlanSchema>;

export async function distillTraces(options: DistillOptions): Promise<DistillResult> {
  const maxSteps = options.maxSteps ?? DEFAULT_DISTILL_MAX_STEPS;
  integerOption(maxSteps, 'maxSteps', { min: 1 });
  if (options.traces.length === 0) {
    throw new WeftError('BAD_INPUT', 'no traces to summarize', { location: { field: 'traces' } });
  }
  const strategy = options.strategy ?? 'plan-execute';
  const name = workflowName(options.name ?? options.traces[0]?.taskKey);
  const toolNames = options.tools.map((tool) => tool.name);
  const builder = createGraphBuilder({ name, toolNames });
  const limited = stepLimitedModel(options.model, maxSteps, () => builder.finished);
  const model = limited.model;
  const tag: CallTag = { purpose: 'distill', key: options.traces[0]?.taskKey ?? name };
  const business = new Set(toolNames);
  let mixedCalls = 0;
  let graphCalls = 0;
  let error: string | undefined;
  const signal = options.signal;

  const messages: ChatMessage[] = [{ role: 'user', content: distillUserPrompt(options.traces, options.tools) }];
  try {
    if (strategy === 'plan-execute') {
      try {
        const plan = await generateStructured(
          model,
          { system: distillSystemPrompt('plan', options.tools), messages, tag },
          graphPlanSchema,
          signal ? { signal } : {},
        );
        messages.push(
          { role: 'assistant', content: JSON.stringify(plan.value) },
          { role: 'user', content: 'Now build this graph with the graph tools, and call finish when it is complete.' },
        );
      } catch (caught) {
        // A plan that never parsed is not fatal: the building loop goes on without it, as ES-ReAct would.
        if (!(isWeftError(caught) && caught.code === 'PARSE')) throw caught;
        messages.push({
          role: 'user',
          content:
            'No usable plan came back; build the graph with the graph tools now, and call finish when it is complete.',
        });
      }
    }
    const applyGraph = applyGraphCall(builder);
    const hooks: ToolLoopHooks = {
      replay: (call): Promise<ToolLoopOutcome> | ToolLoopOutcome | undefined => {
        if (call.tool) {
          graphCalls++;
          const applied = applyGraph(call);
          if (!applied) return undefined;
          // Answered here rather than by the loop: the `execute_tool` span the loop would make is made here.
          const span = startToolSpan({ name: call.name, callId: call.id, args: call.args });
          return applied.then((outcome) => {
            span.end(outcome);
            return outcome;
          });
        }
        // Business tools are not among this stage's tools: refused here with a message of their own, and counted.
        if (!business.has(call.name)) return undefined;
        mixedCalls++;
        return {
          ok: false,
          code: 'BAD_CALL',
          durationMs: 0,
          error: `${call.name} is a business tool: only the graph tools work now (build the workflow; the traces have the results)`,
        };
      },
    };
    const system = distillSystemPrompt('build', options.tools);
    for (let reprompts = 0; ; reprompts++) {
      const result = await runToolLoop({
        model,
        call: { system, messages, tag },
        tools: graphTools(builder),
        // The step-limited model ends the loop at the deadline; this only keeps the loop's own forced answer away.
        maxSteps: maxSteps + 1,
        hooks,
        ...(signal ? { signal } : {}),
      });
      if (builder.finished) break;
      if (reprompts >= MAX_FINISH_REPROMPTS) {
        error = `the model answered without calling finish ${reprompts + 1} times; the graph is unfinished (its last reply: ${JSON.stringify(clip(result.text.trim(), 200))})`;
        break;
      }
      messages.splice(0, messages.length, ...result.messages, {
        role: 'user',
        content: await repromptText(builder, toolNames),
      });
    }
  } catch (caught) {
    const stopped = limited.stopped();
    if (stopped !== undefined) {
      if (stopped === 'steps' && !builder.finished) {
        error = `no finish after ${maxSteps} model calls (the step limit); the graph is unfinished`;
      }
    } else if (isWeftError(caught) && caught.code === 'BUDGET') {
      // The caller's budget (a command-wide --max-calls, --timeout …): the partial graph is kept, the caller says why.
      error = `stopped by the budget: ${caught.message}; the graph is unfinished`;
    } else if (options.keepOnAbort && ((isWeftError(caught) && caught.code === 'ABORTED') || signal?.aborted)) {
      error = 'cancelled before finish; the graph is unfinished';
    } else if (isWeftError(caught) && caught.code !== 'ABORTED' && caught.code !== 'INTERNAL') {
      // The model failed (a provider error after retries, a reply that never parsed): the partial graph is kept.
      error = `the model failed: ${caught.message}`;
    } else throw caught;
  }
  const workflow = builder.workflow;
  const problems = await checkWorkflow(workflow, { toolNames });
  return {
    workflow,
    finished: builder.finished,
    problems,
    valid: !problems.some((problem) => problem.severity === 'error'),
    mixedCalls,
    graphCalls,
    steps: limited.meter.calls,
    usage: {
      calls: limited.meter.calls,
      inputTokens: limited.meter.inputTokens,
      outputTokens: limited.meter.outputTokens,
    },
    ...(error !== undefined && !builder.finished ? { error } : {}),
  };
}

/** What a reply without a tool call is told: what is missing and which errors remain. */
async function repromptText(builder: GraphBuilder, toolNames: readonly string[]): Promise<string> {
  const workflow = builder.workflow;
  const missing = missingParts(workflow);
  const errors = (await checkWorkflow(workflow, { toolNames }))
    .filter((problem) => problem.severity === 'error')
    .map((problem) => `${problem.node ? `[${problem.node}] ` : ''}${problem.message}`);
  return [
    'You replied without calling a graph tool, and the workflow is not finished (finish has not been accepted).',
    missing.length > 0 ? `Still missing: ${missing.slice(0, 12).join('; ')}.` : '',
    errors.length > 0 ? `Errors: ${errors.slice(0, 12).join('; ')}.` : '',
    'Go on with the graph tools, and call finish when nothing is missing.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** A workflow name from a task key: at most 200 characters, `distilled` when there is none. */
export function workflowName(key: string | undefined): string {
  const trimmed = key?.trim() ?? '';
  return trimmed === '' ? 'distilled' : trimmed.slice(0, 200);
}
