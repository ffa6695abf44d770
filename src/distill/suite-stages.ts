/**
 * The real stages behind `weft distill eval`: for the ES variants the execute stage (`solveTask`, solve.ts) and
 * the summarize stage (`distillTraces`, distill-traces.ts); for the baselines `solveAndBuild` (single-stage.ts).
 *
 * NOT BUILT YET (issue 14): those stages are written by other helpers at the same time as this harness. The
 * integrator wires them here, e.g. for `es-pe`:
 *   execute: (input, expected, { task, tools, signal }) => solveTask({ model, tools, task: task.description,
 *     input, mode: 'plan-execute', taskKey: task.name, expected, toolsPath: task.tools[0], signal }),
 *   summarize: (traces, { task, tools, signal }) => distillTraces({ model, traces, tools,
 *     strategy: 'plan-execute', name: task.name, signal }),
 * and for `react`/`pe`: solveAndBuild: (input, expected, ctx) => solveAndBuild({ model, tools: ctx.tools, … }).
 * `model` is already the task's model: counted by the harness, and following the task's reference when it is sim.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { WeftError } from '../errors.js';
import type { SuiteStages } from './evaluate-suite.js';
import type { DistillVariant } from './stage-types.js';

export function suiteStages(_model: ChatModel, variant: DistillVariant): SuiteStages {
  throw new WeftError(
    'INTERNAL',
    `weft distill eval: the ${variant} stages (solveTask, distillTraces, solveAndBuild) are not built yet`,
  );
}
