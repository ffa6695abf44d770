/**
 * A whole run: plan (unless a plan is given), execute, record every event and plan version in the store, write
 * artifacts, `plan-v<N>.json` and `report.md` under `<home>/runs/<runId>/`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbortError } from '../errors.js';
import { toWorkflowJson } from '../graph/index.js';
import type { Workflow } from '../graph/workflow.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { randomFrom } from '../llm/seeded-random.js';
import { planTask } from '../plan/plan-task.js';
import type { RunStore } from '../store/run-store.js';
import { newRunId } from '../store/run-id.js';
import { runPaths } from '../store/run-paths.js';
import { writeArtifacts } from './artifacts.js';
import { EventLog } from './event-log.js';
import { candidateSummary } from './candidate-summary.js';
import type { WeftEvent, WorkflowDiffSummary } from './events.js';
import { execute, type ExecutionStrategy } from './execution.js';
import { extractArtifacts } from './extract-artifacts.js';
import { createMeter, meteredModel, type Budget } from './metered-model.js';
import { renderReport } from './report.js';
import { summarizeRun, type RunSummary } from './run-summary.js';

export interface RunTaskOptions {
  readonly task: string;
  readonly model: ChatModel;
  readonly store: RunStore;
  /** The Weft home (`.weft`); the run directory is `<home>/runs/<runId>`. */
  readonly home: string;
  /** Run this workflow instead of planning. */
  readonly plan?: Workflow;
  readonly candidates?: number;
  readonly strategy?: ExecutionStrategy;
  readonly concurrency?: number;
  readonly budget?: Budget;
  readonly maxAttempts?: number;
  /** Candidate revisions per plan update (default: `candidates`). */
  readonly updateCandidates?: number;
  readonly verify?: boolean;
  /** Fault injection (SPEC §1.5): each subtask's first result is replaced by "none" with this probability. */
  readonly injectMask?: { readonly probability: number; readonly seed: number };
  /** USD of one call; defaults to free (the CLI passes the price table). */
  readonly costOf?: (result: ChatResult) => number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: WeftEvent) => void;
  readonly runId?: string;
  /** Monotonic milliseconds; injectable for tests. */
  readonly clock?: () => number;
}

export interface RunTaskResult extends RunSummary {
  readonly runDir: string;
  readonly reason?: string;
  readonly workflow: Workflow | undefined;
}

export async function runTask(options: RunTaskOptions): Promise<RunTaskResult> {
  const clock = options.clock ?? (() => performance.now());
  const startedAt = clock();
  const now = () => Math.round((clock() - startedAt) * 1000) / 1000;
  const runId = options.runId ?? newRunId();
  const paths = runPaths(options.home, runId);
  const runDir = paths.dir;
  const artifactDir = paths.artifacts;
  await mkdir(artifactDir, { recursive: true });

  const runOptions = {
    strategy: options.strategy ?? 'on-failure',
    candidates: options.candidates ?? 3,
    concurrency: options.concurrency ?? null,
    budget: options.budget ?? {},
    plan: options.plan ? 'given' : 'generated',
    ...(options.injectMask ? { injectMask: options.injectMask } : {}),
  };
  await options.store.createRun({ runId, task: options.task, model: options.model.id, options: runOptions });
  const log = new EventLog(options.store, runId, now, options.onEvent);
  const emit = (event: Parameters<EventLog['emit']>[0]) => log.emit(event);
  emit({ type: 'run-start', runId, task: options.task, model: options.model.id, strategy: options.strategy ?? 'on-failure', options: runOptions });

  const meter = createMeter();
  const model = meteredModel(options.model, { budget: options.budget ?? {}, meter, now, costOf: options.costOf ?? (() => 0), emit });
  const versions: { version: number; cause: string; diff?: WorkflowDiffSummary }[] = [];
  const artifacts: { taskId: string; path: string; bytes: number }[] = [];
  const refused: { taskId: string; path: string; reason: string }[] = [];
  const savePlan = async (version: number, workflow: Workflow, cause: string, diff?: WorkflowDiffSummary) => {
    versions.push({ version, cause, ...(diff ? { diff } : {}) });
    await options.store.savePlanVersion({ runId, version, workflow: toWorkflowJson(workflow), cause, ...(diff ? { diff } : {}) });
    await writeFile(paths.planFile(version), `${JSON.stringify(toWorkflowJson(workflow), null, 2)}\n`);
  };

  let status: RunSummary['status'];
  let reason: string | undefined;
  let finalWorkflow: Workflow | undefined;
  try {
    const initial = options.plan ? { ...options.plan, task: options.task } : await plan(options, model, emit);
    await savePlan(1, initial, options.plan ? 'given plan' : 'initial plan');
    if (options.plan) emit({ type: 'plan-chosen', version: 1, index: 0, workflow: toWorkflowJson(initial) });
    const mask = options.injectMask;
    const result = await execute({
      workflow: initial,
      model,
      strategy: options.strategy ?? 'on-failure',
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
      // SPEC §1.4: updates are chosen among K candidates by the same rule as plans.
      updateCandidates: options.updateCandidates ?? options.candidates ?? 3,
      ...(options.verify !== undefined ? { verify: options.verify } : {}),
      ...(mask ? { mask: (taskId: string, attempt: number) => attempt === 1 && randomFrom(mask.seed, 'mask', taskId)() < mask.probability } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      emit,
      onAccepted: async (taskId, output) => {
        const found = extractArtifacts(output);
        if (found.length === 0) return;
        const written = await writeArtifacts(artifactDir, found);
        for (const file of written.written) {
          artifacts.push({ taskId, ...file });
          emit({ type: 'artifact', taskId, path: file.path, bytes: file.bytes });
        }
        for (const file of written.refused) {
          refused.push({ taskId, ...file });
          emit({ type: 'artifact-refused', taskId, path: file.path, reason: file.reason });
        }
      },
      onPlanVersion: (version, workflow, cause, diff) => savePlan(version, workflow, cause, diff),
    });
    status = result.status;
    reason = result.reason;
    finalWorkflow = result.workflow;
  } catch (error) {
    if (isAbortError(error) || options.signal?.aborted) {
      status = 'cancelled';
      reason = 'cancelled';
    } else {
      status = 'failed';
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  emit({ type: 'budget', calls: meter.calls, tokens: { input: meter.inputTokens, output: meter.outputTokens }, costUsd: meter.costUsd });
  emit({ type: 'run-end', status, ...(reason !== undefined ? { reason } : {}) });
  await log.close();
  await options.store.setStatus(runId, status);

  const summary = summarizeRun(runId, log.events);
  await writeFile(
    paths.report,
    renderReport({ summary, workflow: finalWorkflow, task: options.task, model: options.model.id, modelKind: options.model.kind, versions, artifacts, refused }),
  );
  return { ...summary, runDir, workflow: finalWorkflow, ...(reason !== undefined ? { reason } : {}) };
}

async function plan(options: RunTaskOptions, model: ChatModel, emit: EventLog['emit']): Promise<Workflow> {
  const result = await planTask({
    task: options.task,
    model,
    candidates: options.candidates ?? 3,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  emit({ type: 'plan-candidates', purpose: 'plan', candidates: result.candidates.map(candidateSummary) });
  emit({ type: 'plan-chosen', version: 1, index: result.chosenIndex, workflow: toWorkflowJson(result.workflow) });
  return result.workflow;
}
