/**
 * `weft plan <task|file>`: K candidate plans with their metrics and the chosen one. `--format json` prints the
 * chosen plan (a `--plan` file); `--format worfbench` prints it as WorfBench's node chain and edges, planned at
 * the granularity of single actions (src/eval/plan-as-workflow-text.ts), for `weft eval` and WorfEval.
 */
import { writeFile } from 'node:fs/promises';
import {
  RUN_DEFAULTS,
  candidateSummary,
  createMeter,
  loadTeamOffers,
  meteredModel,
  planAsWorkflowText,
  planTask,
  redactModelSpec,
  toMermaid,
  toWorkflowJson,
  traceAgent,
  WeftError,
  type PlanResult,
} from '../../internal.js';
import { loadContext, loadModel, modelMaker } from '../context.js';
import { choiceFlag, integerFlag } from '../flags.js';
import type { Output } from '../output.js';
import { readTask } from '../read-task.js';

export interface PlanFlags {
  readonly candidates?: string;
  readonly model?: string;
  readonly home?: string;
  readonly out?: string;
  readonly format?: string;
  /** Team files offered to the planner (repeatable). */
  readonly team?: readonly string[];
  /** `--no-planner-scope`: false when given (docs/algorithms.md#prompt-scope). */
  readonly plannerScope?: boolean;
  readonly json?: boolean;
}

export type PlanFormat = 'text' | 'json' | 'worfbench';

export async function planCommand(
  taskArgument: string,
  flags: PlanFlags,
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const candidates = integerFlag('candidates', flags.candidates, { min: 1 }) ?? RUN_DEFAULTS.candidates;
  const format = choiceFlag<PlanFormat>('format', flags.format, ['text', 'json', 'worfbench']) ?? 'text';
  const { task } = await readTask(taskArgument);
  if (format === 'worfbench' && flags.team && flags.team.length > 0) {
    throw new WeftError(
      'BAD_INPUT',
      '--team does not apply to --format worfbench: WorfBench workflows are single actions, not agents',
      { location: { field: '--team' } },
    );
  }
  if (format === 'worfbench' && flags.plannerScope === false) {
    throw new WeftError(
      'BAD_INPUT',
      "--no-planner-scope does not apply to --format worfbench: WorfBench's prompt has no scope rules to turn off",
      { location: { field: '--no-planner-scope' } },
    );
  }
  const { config } = await loadContext(flags);
  const { model, costOf } = await loadModel(flags.model, config);
  const teams =
    flags.team && flags.team.length > 0
      ? await loadTeamOffers(flags.team, process.cwd(), { createModel: modelMaker(config), runModel: model.id })
      : undefined;
  const meter = createMeter();
  const started = performance.now();
  const metered = meteredModel(model, {
    budget: {},
    meter,
    now: () => performance.now() - started,
    costOf,
    emit: () => {},
  });
  output.log(
    `planning with ${redactModelSpec(model.id)}${model.kind === 'real' ? '' : ` (${model.kind} model)`}, ${candidates} candidate(s)…`,
  );
  let worfbench: string | undefined;
  // With tracing on, one `invoke_agent planner` span holds the candidates' and repairs' `chat` spans.
  const result: PlanResult = await traceAgent(
    {
      agent: 'planner',
      attributes: { 'weft.command': 'plan', 'weft.candidates': candidates, 'weft.plan.format': format },
      content: { 'weft.task': task },
    },
    async () => {
      if (format !== 'worfbench')
        return planTask({
          task,
          model: metered,
          candidates,
          signal,
          ...(teams ? { teams } : {}),
          ...(flags.plannerScope === false ? { scope: false } : {}),
        });
      const planned = await planAsWorkflowText({ task, model: metered, candidates, signal });
      worfbench = planned.text;
      return planned.plan;
    },
    (planned) => ({
      'weft.plan.chosen': planned.chosenIndex,
      'weft.plan.subtasks': planned.workflow.subtasks.length,
      'weft.calls': meter.calls,
      'gen_ai.usage.input_tokens': meter.inputTokens,
      'gen_ai.usage.output_tokens': meter.outputTokens,
      'weft.cost_usd': meter.costUsd,
    }),
  );
  const plan = toWorkflowJson(result.workflow);
  if (flags.out) await writeFile(flags.out, `${JSON.stringify(plan, null, 2)}\n`);
  if (output.json) {
    output.document({
      model: model.id,
      modelKind: model.kind,
      chosen: result.chosenIndex,
      candidates: result.candidates.map((candidate) => ({
        ...candidateSummary(candidate),
        ...(candidate.workflow ? { plan: toWorkflowJson(candidate.workflow) } : {}),
      })),
      plan,
      calls: meter.calls,
      tokens: { input: meter.inputTokens, output: meter.outputTokens },
      costUsd: meter.costUsd,
      ...(worfbench !== undefined ? { worfbench } : {}),
    });
    return 0;
  }
  // Machine-readable formats own stdout; the summary goes to stderr.
  if (format !== 'text') {
    output.text(worfbench ?? JSON.stringify(plan, null, 2));
    const chosen = result.candidates[result.chosenIndex];
    const summary = chosen ? candidateSummary(chosen) : undefined;
    output.log(
      `chose candidate #${result.chosenIndex + 1} of ${result.candidates.length}${summary ? ` (P=${summary.parallelism.toFixed(2)}, C=${summary.dependencyComplexity.toFixed(2)})` : ''}; ` +
        `${meter.calls} calls, ${meter.inputTokens + meter.outputTokens} tokens, $${meter.costUsd.toFixed(4)}${flags.out ? `; plan written to ${flags.out}` : ''}`,
    );
    return 0;
  }
  output.text('candidate  subtasks  levels  parallelism  dep.complexity');
  for (const candidate of result.candidates) {
    const summary = candidateSummary(candidate);
    const mark = candidate.index === result.chosenIndex ? '*' : ' ';
    output.text(
      candidate.error
        ? `${mark}#${candidate.index + 1}        unusable: ${candidate.error}`
        : `${mark}#${candidate.index + 1}        ${String(summary.subtasks).padEnd(9)} ${String(summary.levels).padEnd(7)} ${summary.parallelism.toFixed(3).padEnd(12)} ${summary.dependencyComplexity.toFixed(3)}`,
    );
  }
  output.text('');
  for (const subtask of result.workflow.subtasks) {
    output.text(
      `${subtask.id} [${subtask.agent}]${subtask.dependsOn.length ? ` after ${subtask.dependsOn.join(', ')}` : ''}: ${subtask.objective}`,
    );
  }
  output.text('');
  output.text(toMermaid(result.workflow).trimEnd());
  if (flags.out) output.text(`\nplan written to ${flags.out}`);
  output.text(`\n${meter.calls} calls, ${meter.inputTokens + meter.outputTokens} tokens, $${meter.costUsd.toFixed(4)}`);
  return 0;
}
