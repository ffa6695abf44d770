/**
 * The global inspector (docs/algorithms.md#plan-updates): K candidate revisions, each merged into the live graph, the
 * best kept by the same parallelism / dependency-complexity rule as planning.
 */
import { pickBest, workflowMetrics } from '../graph/index.js';
import type { Workflow, WorkflowJson } from '../graph/workflow.js';
import type { ChatModel } from '../llm/chat-model.js';
import { generateStructured } from '../llm/structured-output.js';
import { updateAnswerJsonSchema } from './answer-schemas.js';
import { rethrowFatal } from './rethrow-fatal.js';
import { mergeUpdate } from './merge-update.js';
import type { PlanCandidate } from './plan-task.js';
import { updateAnswerSchema } from './plan-schemas.js';
import { inspectorSystem, updatePrompt, type FailureReport, type ParentOutput } from './prompts.js';

export interface UpdateOptions {
  readonly model: ChatModel;
  readonly workflow: Workflow;
  /** The failures to repair, each with its last output when it had one (the inspector sees it). */
  readonly failed: readonly FailureReport[];
  readonly candidates?: number;
  /** Ask for the smallest change the failures require (default true; docs/algorithms.md#prompt-scope). */
  readonly minimal?: boolean;
  /** The run's id, for the prompt's pointer to a whole failed output. */
  readonly runId?: string;
  /** Distinguishes successive updates for seeded models. */
  readonly sequence: number;
  readonly signal?: AbortSignal;
}

export type Proposal = Pick<WorkflowJson, 'roles' | 'subtasks'>;

export interface UpdateResult {
  readonly candidates: readonly PlanCandidate[];
  /**
   * The chosen revision, undefined on `no-change` and `failed`. The caller merges it into the live state with
   * `mergeUpdate` when it applies it, because subtasks may have finished while the inspector was thinking.
   * A broken inspector answer (`failed`) degrades to rerunning the failed subtasks, not to a stalled run.
   */
  readonly proposal: Proposal | undefined;
  readonly outcome: 'changed' | 'no-change' | 'failed';
  readonly chosenIndex: number;
}

export async function proposeUpdate(options: UpdateOptions): Promise<UpdateResult> {
  const count = options.candidates ?? 1;
  const completed: ParentOutput[] = options.workflow.subtasks
    .filter((s) => s.status === 'completed' && s.output !== undefined)
    .map((s) => ({ id: s.id, objective: s.objective, output: s.output ?? '' }));
  const prompt = updatePrompt(options.workflow, options.failed, completed, options.runId);
  const system = inspectorSystem(options.minimal ?? true);
  const settled = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      generateStructured(
        options.model,
        {
          system,
          messages: [{ role: 'user', content: prompt }],
          json: { name: 'update', schema: updateAnswerJsonSchema },
          temperature: count > 1 ? 0.7 : 0.2,
          tag: { purpose: 'update', key: `update-${options.sequence}`, attempt: index + 1 },
        },
        updateAnswerSchema,
        { signal: options.signal },
      ),
    ),
  );
  options.signal?.throwIfAborted();
  rethrowFatal(settled);
  const candidates: (PlanCandidate & { proposal?: Proposal })[] = settled.map((outcome, index) => {
    if (outcome.status === 'rejected')
      return { index, error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) };
    const answer = outcome.value.value;
    const proposal = 'noChange' in answer ? undefined : answer;
    const merged = mergeUpdate(options.workflow, proposal);
    if (!merged.ok)
      return { index, error: merged.issues.map((i) => `${i.field ?? ''} ${i.message}`.trim()).join('; ') };
    return {
      index,
      workflow: merged.workflow,
      metrics: workflowMetrics(merged.workflow),
      ...(proposal ? { proposal } : {}),
    };
  });
  const usable = candidates.filter((c) => c.workflow !== undefined);
  if (usable.length === 0) return { candidates, proposal: undefined, outcome: 'failed', chosenIndex: -1 };
  const best = usable[pickBest(usable.map((c) => c.workflow!))]!;
  return {
    candidates,
    proposal: best.proposal,
    outcome: best.proposal ? 'changed' : 'no-change',
    chosenIndex: best.index,
  };
}
