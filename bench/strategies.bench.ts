/**
 * Update strategies under fault injection (docs/algorithms.md#update-strategies and #fault-injection): each subtask's
 * first output is masked to "none" with probability 0.2; the sim model's verifier rejects "none" and its inspector
 * revises the failed subtasks. For each strategy: API calls per completed subtask, success rate and makespan. `none` is
 * the run without updates.
 */
import { randomFrom } from '../src/llm/seeded-random.js';
import { simModel } from '../src/llm/sim-model.js';
import type { CallTag, ChatModel } from '../src/llm/chat-model.js';
import { execute, type ExecutionStrategy } from '../src/run/execution.js';
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
        `${(summary.completedShare * 100).toFixed(0)} %`,
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
          'runs succeeded',
          'subtasks completed',
          'mean makespan',
          'vs on-failure',
        ],
        cells,
      },
      notes: [
        'Same DAGs and the same masked subtasks (seeded by DAG and subtask id) for every strategy.',
        '`none` never updates the plan, so a masked subtask fails and its descendants never run (the baseline of docs/algorithms.md#fault-injection);',
        'its makespan is short because its runs stop early.',
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
  const result = await execute({
    workflow: dag.workflow,
    model,
    strategy,
    // The same rule as `weft run --inject-mask P --seed S`: only the first attempt may be masked.
    mask: (taskId, attempt) => attempt === 1 && randomFrom(seed, 'mask', taskId)() < MASK_PROBABILITY,
    emit: () => {},
  });
  return {
    completed: result.status === 'completed',
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
    completedShare: completedSubtasks / (runs.length * NODES),
    makespanMs: mean(runs.map((run) => run.makespanMs)),
  };
}
