/**
 * The real stages behind `weft distill eval`: for the ES variants the execute stage (`solveTask`) and
 * the summarize stage (`distillTraces`), each with the variant's strategy (ES-P&E plans in both stages, as the
 * paper's default does); for the baselines `react` and `pe`, `solveAndBuild` (one agent, both tool sets).
 * `model` is already the task's model: counted by the harness, and following the task's reference when it is sim.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { distillTraces } from './distill-traces.js';
import type { StageContext, SuiteStages } from './evaluate-suite.js';
import type { TaskInput } from './load-suite.js';
import type { JsonValue } from '../tools/tool.js';
import { solveAndBuild } from './single-stage.js';
import { solveTask } from './solve.js';
import type { AgentStrategy, DistillVariant } from './stage-types.js';

/**
 * Model calls an execute agent may make on one suite instance. The suite's loops run up to a few dozen tool calls,
 * and a model that makes one call a reply needs one step each; a deadline, not a target.
 */
export const SUITE_SOLVE_MAX_STEPS = 100;

export function suiteStages(model: ChatModel, variant: DistillVariant): SuiteStages {
  const strategy: AgentStrategy = variant === 'es-react' || variant === 'react' ? 'react' : 'plan-execute';
  // What the execute agent and the single-stage agent are given for one instance.
  const instance = (input: TaskInput, expected: JsonValue | undefined, { task, tools, signal }: StageContext) => ({
    model,
    tools,
    task: task.description,
    input,
    mode: strategy,
    taskKey: task.name,
    maxSteps: SUITE_SOLVE_MAX_STEPS,
    ...(expected === undefined ? {} : { expected }),
    ...(task.tools[0] === undefined ? {} : { toolsPath: task.tools[0] }),
    signal,
  });
  if (variant === 'react' || variant === 'pe') {
    return {
      solveAndBuild: (input, expected, context) =>
        solveAndBuild({ ...instance(input, expected, context), name: context.task.name }),
    };
  }
  return {
    execute: (input, expected, context) =>
      solveTask({
        ...instance(input, expected, context),
        ...(context.rollout !== undefined ? { rollout: context.rollout } : {}),
      }),
    summarize: (traces, { task, tools, signal }) =>
      distillTraces({ model, traces, tools, strategy, name: task.name, signal }),
  };
}
