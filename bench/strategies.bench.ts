/**
 * Update strategies under fault injection (docs/algorithms.md#update-strategies and #fault-injection): each subtask's
 * first output is handed to its children as "none" with probability 0.2, after its own verifier judged what was
 * produced (as the Flow paper masks). The sim agent builds on what it is given and names a masked input it built on;
 * the sim inspector revises a completed subtask whose result is "none". For each strategy: API calls per completed
 * subtask, runs that completed, task success by a check independent of the run's verifier (every subtask completed
 * and no accepted output is the mask or built on it), the paper's changed ratio, and makespan. `none` is the run
 * without updates.
 */
import { randomFrom } from '../src/llm/seeded-random.js';
import { simModel } from '../src/llm/sim-model.js';
import { simOutputSound } from '../src/plan/sim-flow-responders.js';
import type { CallTag, ChatModel } from '../src/llm/chat-model.js';
import type { WorkflowJson } from '../src/graph/workflow.js';
import { execute, type ExecutionStrategy } from '../src/run/execution.js';
import { planChangesOf } from '../src/run/plan-history.js';
import { toWorkflowJson } from '../src/graph/index.js';
import { randomDag } from './random-dag.js';
import type { Bench, BenchReport } from './report.js';
import { mean } from './stats.js';

const STRATEGIES: readonly ExecutionStrategy[] = ['on-failure', 'concurrent', 'after-completion', 'none'];
const SEEDS = 30;
const MASK_PROBABILITY = 0.2;
const NODES = 16;
const LATENCY = 'lognormal(2,0.5)';

interface RunSample {
  readonly completed: boolean;
  /** The independent check: every subtask completed, none of their outputs is the mask or was built on it. */
  readonly taskSuccess: boolean;
  /** The paper's changed ratio over the run (Table 5); null when the plan never changed. */
  readonly changedRatio: number | null;
  /** The mean changed ratio per update; null when the plan never changed. */
  readonly updateRatio: number | null;
  readonly completedSubtasks: number;
  readonly calls: Record<CallTag['purpose'], number>;
  readonly makespanMs: number;
}

export const strategiesBench: Bench = {
  name: 'strategies',
  async run(): Promise<BenchReport> {
    const samples = new Map<ExecutionStrategy, RunSample[]>(STRATEGIES.map((strategy) => [strategy, []]));
    for (let seed = 1; seed <= SEEDS; seed++) {
      for (const strategy of STRATEGIES) samples.get(strategy)!.push(await runOnce(seed, strategy));
    }
    const reference = summarizeRuns(samples.get('on-failure')!);
    const cells = STRATEGIES.map((strategy) => {
      const summary = summarizeRuns(samples.get(strategy)!);
      return [
        strategy,
        summary.callsPerCompleted.toFixed(2),
        `${summary.executeCalls.toFixed(1)} / ${summary.verifyCalls.toFixed(1)} / ${summary.updateCalls.toFixed(1)}`,
        `${(summary.successRate * 100).toFixed(0)} %`,
        `${(summary.taskSuccessRate * 100).toFixed(0)} %`,
        `${(summary.completedShare * 100).toFixed(0)} %`,
        summary.changedRatio === null ? '-' : `${(summary.changedRatio * 100).toFixed(0)} %`,
        summary.updateRatio === null ? '-' : `${(summary.updateRatio * 100).toFixed(0)} %`,
        `${summary.makespanMs.toFixed(0)} ms`,
        (summary.makespanMs / reference.makespanMs).toFixed(2),
      ];
    });
    return {
      title: `Update strategies under fault injection: ${SEEDS} random ${NODES}-subtask DAGs, mask p = ${MASK_PROBABILITY}, sim:latency=${LATENCY}`,
      rows: [],
      table: {
        header: [
          'strategy',
          'calls / completed subtask',
          'calls per run: execute / verify / update',
          'runs completed',
          'task success (independent check)',
          'subtasks completed',
          'changed ratio (paper)',
          'changed ratio per update',
          'mean makespan',
          'vs on-failure',
        ],
        cells,
      },
      notes: [
        'Same DAGs and the same masked subtasks (seeded by DAG and subtask id) for every strategy.',
        '"runs completed" is what the run itself reports; "task success" is the check apart from its verifier, the measure of the Flow paper\'s Table 4.',
        'A masked output passes its own verifier, so `none` and `on-failure` (which updates only on a failure) complete runs whose task fails;',
        'the reviewing strategies see the "none" among the results, revise that subtask, and everything that read it runs again.',
        'Changed ratio (paper, Table 5): subtasks of the first plan that an update modified or removed, over its size, averaged over runs',
        'whose plan changed; per update: added + removed + modified over the size of the plan before the update.',
      ],
    };
  },
};

async function runOnce(seed: number, strategy: ExecutionStrategy): Promise<RunSample> {
  const dag = randomDag(seed, { nodes: NODES });
  const calls: Record<CallTag['purpose'], number> = {
    plan: 0,
    execute: 0,
    verify: 0,
    update: 0,
    rank: 0,
    answer: 0,
    converse: 0,
    'simulate-user': 0,
    judge: 0,
    worfbench: 0,
    solve: 0,
    distill: 0,
    'simulate-api': 0,
    other: 0,
  };
  const model = countingModel(simModel(`latency=${LATENCY},seed=${seed}`), calls);
  const started = performance.now();
  const versions: WorkflowJson[] = [toWorkflowJson(dag.workflow)];
  const result = await execute({
    workflow: dag.workflow,
    model,
    strategy,
    // The same rule as `weft run --inject-mask P --seed S`: only the first attempt may be masked.
    mask: (taskId, attempt) => attempt === 1 && randomFrom(seed, 'mask', taskId)() < MASK_PROBABILITY,
    emit: (event) => {
      if (event.type === 'plan-update') versions.push(event.workflow);
    },
  });
  const changes = versions.length > 1 ? planChangesOf(versions) : null;
  return {
    completed: result.status === 'completed',
    taskSuccess: result.workflow.subtasks.every(
      (subtask) => subtask.status === 'completed' && simOutputSound(subtask.output),
    ),
    changedRatio: changes?.changedRatio ?? null,
    updateRatio: changes?.meanUpdateRatio ?? null,
    completedSubtasks: result.workflow.subtasks.filter((subtask) => subtask.status === 'completed').length,
    calls,
    makespanMs: performance.now() - started,
  };
}

function countingModel(model: ChatModel, calls: Record<CallTag['purpose'], number>): ChatModel {
  return {
    id: model.id,
    kind: model.kind,
    generate(call, signal) {
      calls[call.tag?.purpose ?? 'other'] += 1;
      return model.generate(call, signal);
    },
  };
}

function summarizeRuns(runs: readonly RunSample[]) {
  const totalCalls = runs.reduce((sum, run) => sum + Object.values(run.calls).reduce((a, b) => a + b, 0), 0);
  const completedSubtasks = runs.reduce((sum, run) => sum + run.completedSubtasks, 0);
  return {
    callsPerCompleted: totalCalls / Math.max(1, completedSubtasks),
    executeCalls: mean(runs.map((run) => run.calls.execute)),
    verifyCalls: mean(runs.map((run) => run.calls.verify)),
    updateCalls: mean(runs.map((run) => run.calls.update)),
    successRate: runs.filter((run) => run.completed).length / runs.length,
    taskSuccessRate: runs.filter((run) => run.taskSuccess).length / runs.length,
    changedRatio: meanOrNull(runs.flatMap((run) => (run.changedRatio === null ? [] : [run.changedRatio]))),
    updateRatio: meanOrNull(runs.flatMap((run) => (run.updateRatio === null ? [] : [run.updateRatio]))),
    completedShare: completedSubtasks / (runs.length * NODES),
    makespanMs: mean(runs.map((run) => run.makespanMs)),
  };
}

function meanOrNull(values: readonly number[]): number | null {
  return values.length === 0 ? null : mean(values);
}
