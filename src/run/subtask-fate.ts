/**
 * What the event log says became of each subtask: one fold (`foldFate`) that resume (resume-state.ts) and the run
 * summary (run-summary.ts) both read, so "what a run's state is" is defined once. Pure.
 *
 * The fold keeps what either reader needs; each reads its own view of it: resume counts the attempts that ended
 * and reads a failure a repair round sent back as not started, the summary counts the attempts that started and
 * words a verifier's failure its own way. The executor's live state (run-state.ts) is not this fold: it also holds
 * what the log does not record (running attempts and their clones, requested but unstarted updates, the durability
 * gate), and this fold must also read logs written by older versions.
 */
import type { SubtaskStatus, WorkflowJson } from '../graph/workflow.js';
import type { Verdict, WeftEvent } from './events.js';

export interface SubtaskFate {
  /** 'in progress' from a start until its verdict (or its failure). */
  status: SubtaskStatus;
  /** The highest attempt started. */
  started: number;
  /** The highest attempt that ended (a refused or aborted one did not), or a plan version's count if higher. */
  ended: number;
  startMs: number | null;
  endMs: number | null;
  /** The accepted output. */
  output?: string;
  /** An attempt's output until its verdict. */
  pendingOutput?: { attempt: number; output: string };
  /** Why it last failed: its attempt's error, or the verifier's verdict. */
  failure?: { readonly error: string | undefined } | { readonly verdict: Verdict; readonly reason: string };
  /** A repair round sent this failed subtask back to run (it has not started again yet). */
  sentBack: boolean;
}

export type Fates = Map<string, SubtaskFate>;

export function fateOf(fates: Fates, id: string): SubtaskFate {
  let fate = fates.get(id);
  if (!fate)
    fates.set(
      id,
      (fate = { status: 'not started', started: 0, ended: 0, startMs: null, endMs: null, sentBack: false }),
    );
  return fate;
}

/** Folds one event into the fates; events that say nothing of a subtask's fate are ignored. */
export function foldFate(fates: Fates, event: WeftEvent): void {
  switch (event.type) {
    case 'plan-chosen':
    case 'plan-update':
      foldPlanVersion(fates, event.workflow);
      break;
    case 'task-start': {
      const fate = fateOf(fates, event.taskId);
      fate.started = Math.max(fate.started, event.attempt);
      setStatus(fate, 'in progress');
      fate.startMs ??= event.at;
      break;
    }
    case 'task-end': {
      const fate = fateOf(fates, event.taskId);
      // A refused or aborted call never produced the attempt: it is redone under the same number.
      if (event.outcome === 'refused' || event.outcome === 'aborted') {
        fate.endMs = event.at;
        setStatus(fate, 'not started');
        break;
      }
      fate.ended = Math.max(fate.ended, event.attempt);
      // A discarded run belongs to a plan version that no longer holds it; the plan-update already said so.
      if (event.outcome === 'discarded') break;
      fate.endMs = event.at;
      if (event.status === 'failed') {
        setStatus(fate, 'failed');
        fate.failure = { error: event.error };
      } else {
        setStatus(fate, 'in progress');
        if (event.output !== undefined) fate.pendingOutput = { attempt: event.attempt, output: event.output };
      }
      break;
    }
    case 'task-verify': {
      // A retry verdict sends the subtask back to the ready set: until it runs again it is not started.
      const fate = fateOf(fates, event.taskId);
      setStatus(fate, event.verdict === 'accept' ? 'completed' : event.verdict === 'retry' ? 'not started' : 'failed');
      if (fate.status === 'failed') fate.failure = { verdict: event.verdict, reason: event.reason };
      // The output a verdict accepts is the one its attempt's task-end carried.
      if (event.verdict === 'accept' && fate.pendingOutput?.attempt === event.attempt)
        fate.output = fate.pendingOutput.output;
      delete fate.pendingOutput;
      break;
    }
    case 'plan-candidates':
      // The round already answered these failures: they run again rather than wait for another round.
      if (event.purpose === 'update') {
        for (const id of event.rerun ?? []) {
          const fate = fateOf(fates, id);
          if (fate.status === 'failed') fate.sentBack = true;
        }
      }
      break;
    default:
      break;
  }
}

/** Why a failed subtask failed, as resume words it (the repair it waits for is asked with this). */
export function resumeReason(fate: SubtaskFate): string {
  const failure = fate.failure;
  if (!failure) return 'failed';
  return 'verdict' in failure
    ? failure.reason || `verification answered ${failure.verdict}`
    : (failure.error ?? 'failed');
}

/** Why a failed subtask failed, as the run summary words it. */
export function summaryReason(fate: SubtaskFate): string | undefined {
  const failure = fate.failure;
  if (!failure) return undefined;
  return 'verdict' in failure
    ? `the verifier answered ${failure.verdict}${failure.reason ? `: ${failure.reason}` : ''}`
    : failure.error;
}

/** A new plan version decides which subtasks still count as done; what happens after it is folded on top. */
function foldPlanVersion(fates: Fates, workflow: WorkflowJson): void {
  for (const subtask of workflow.subtasks) {
    const fate = fateOf(fates, subtask.id);
    const status = subtask.status ?? 'not started';
    if (status !== 'in progress') setStatus(fate, status);
    if (status === 'completed') fate.output = subtask.output ?? fate.output;
    else if (status !== 'in progress') delete fate.output;
    if (status !== 'failed') delete fate.failure;
    fate.ended = Math.max(fate.ended, subtask.attempts ?? 0);
  }
}

function setStatus(fate: SubtaskFate, status: SubtaskStatus): void {
  fate.status = status;
  fate.sentBack = false;
}
