/**
 * What a resumed run continues from, folded from its event log (pure). The log is the truth: the latest plan
 * version, then every subtask's fate after it. A subtask that was running at the crash runs again under the same
 * attempt number, so its recorded calls are replayed instead of repeated; a completed one keeps its output.
 */
import type { SubtaskStatus, WorkflowJson } from '../graph/workflow.js';
import type { ChatResult } from '../llm/chat-model.js';
import type { RunStatus, WeftEvent, WorkflowDiffSummary } from './events.js';
import { callKey, type Meter } from './metered-model.js';
import type { RunSettings } from './run-settings.js';

export interface ResumeState {
  readonly runId: string;
  readonly task: string;
  readonly model: string;
  readonly settings: RunSettings;
  /** The latest plan version with each subtask's state as the log left it; undefined when planning never finished. */
  readonly workflow: WorkflowJson | undefined;
  readonly version: number;
  /** Failures recorded after the latest plan version, waiting for a repair. */
  readonly failures: readonly { id: string; reason: string }[];
  /** Recorded replies by `callKey`. */
  readonly replay: ReadonlyMap<string, ChatResult>;
  /** What earlier parts of the run spent (calls that failed count as calls). */
  readonly spent: Meter;
  readonly lastAt: number;
  readonly lastStatus: RunStatus | undefined;
  readonly versions: readonly { version: number; cause: string; diff?: WorkflowDiffSummary; workflow: WorkflowJson }[];
  readonly artifacts: readonly { taskId: string; path: string; bytes: number }[];
  readonly refused: readonly { taskId: string; path: string; reason: string }[];
  readonly completed: number;
  /** Inspector rounds finished, and how many repaired failures. */
  readonly rounds: { readonly updates: number; readonly repairs: number };
}

interface TaskFate {
  status: SubtaskStatus;
  attempts: number;
  output?: string;
  pendingOutput?: { attempt: number; output: string };
  reason?: string;
}

export function foldForResume(events: readonly WeftEvent[]): ResumeState {
  let runId = '';
  let task = '';
  let model = '';
  let settings: RunSettings = {};
  let workflow: WorkflowJson | undefined;
  let version = 0;
  let lastAt = 0;
  let lastStatus: RunStatus | undefined;
  const fates = new Map<string, TaskFate>();
  const replay = new Map<string, ChatResult>();
  const spent: Meter = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const versions: { version: number; cause: string; diff?: WorkflowDiffSummary; workflow: WorkflowJson }[] = [];
  const artifacts: { taskId: string; path: string; bytes: number }[] = [];
  const refused: { taskId: string; path: string; reason: string }[] = [];
  const rounds = { updates: 0, repairs: 0 };
  const fate = (id: string): TaskFate => {
    let found = fates.get(id);
    if (!found) fates.set(id, (found = { status: 'not started', attempts: 0 }));
    return found;
  };

  for (const event of events) {
    lastAt = Math.max(lastAt, event.at);
    switch (event.type) {
      case 'run-start':
        runId = event.runId;
        task = event.task;
        model = event.model;
        settings = event.options as RunSettings;
        break;
      case 'run-resume':
        lastStatus = 'running';
        break;
      case 'plan-chosen':
      case 'plan-update':
        workflow = event.workflow;
        version = event.version;
        versions.push(event.type === 'plan-update'
          ? { version: event.version, cause: event.cause, diff: event.diff, workflow: event.workflow }
          : { version: event.version, cause: settings.plan === 'given' ? 'given plan' : 'initial plan', workflow: event.workflow });
        // The version says which subtasks are done; what happens after it is folded on top.
        for (const subtask of event.workflow.subtasks) {
          const current = fate(subtask.id);
          const status = subtask.status ?? 'not started';
          current.status = status === 'in progress' ? current.status : status;
          if (status === 'completed') current.output = subtask.output;
          else if (status !== 'in progress') delete current.output;
          if (status !== 'failed') delete current.reason;
          current.attempts = Math.max(current.attempts, subtask.attempts ?? 0);
        }
        break;
      case 'task-start':
        fate(event.taskId).status = 'in progress';
        break;
      case 'task-end': {
        // A refused or aborted call never produced the attempt: it is redone under the same number.
        if (event.outcome === 'refused' || event.outcome === 'aborted') {
          fate(event.taskId).status = 'not started';
          break;
        }
        const current = fate(event.taskId);
        current.attempts = Math.max(current.attempts, event.attempt);
        if (event.outcome === 'discarded') break;
        if (event.status === 'failed') {
          current.status = 'failed';
          current.reason = event.error ?? 'failed';
        } else if (event.output !== undefined) {
          current.pendingOutput = { attempt: event.attempt, output: event.output };
        }
        break;
      }
      case 'task-verify': {
        const current = fate(event.taskId);
        if (event.verdict === 'accept') {
          current.status = 'completed';
          if (current.pendingOutput?.attempt === event.attempt) current.output = current.pendingOutput.output;
        } else if (event.verdict === 'retry') {
          current.status = 'not started';
        } else {
          current.status = 'failed';
          current.reason = event.reason || 'verification answered replan';
        }
        delete current.pendingOutput;
        break;
      }
      case 'plan-candidates':
        if (event.purpose === 'update') {
          rounds.updates = Math.max(rounds.updates, event.round ?? rounds.updates + 1);
          if (event.repair) rounds.repairs += 1;
          // The round already answered these failures: they run again rather than wait for another round.
          for (const id of event.rerun ?? []) {
            const current = fate(id);
            if (current.status === 'failed') {
              current.status = 'not started';
              delete current.reason;
            }
          }
        }
        break;
      case 'artifact':
        artifacts.push({ taskId: event.taskId, path: event.path, bytes: event.bytes });
        break;
      case 'artifact-refused':
        refused.push({ taskId: event.taskId, path: event.path, reason: event.reason });
        break;
      case 'call':
        spent.calls += 1;
        spent.inputTokens += event.inputTokens;
        spent.outputTokens += event.outputTokens;
        spent.costUsd += event.costUsd;
        if (event.error === undefined && event.text !== undefined && event.sequence !== undefined) {
          replay.set(callKey(event.purpose, event.key, event.attempt, event.sequence), {
            text: event.text,
            usage: { inputTokens: event.inputTokens, outputTokens: event.outputTokens },
            model: event.model,
          });
        }
        break;
      case 'run-end':
        lastStatus = event.status;
        break;
      default:
        break;
    }
  }

  const resumed: WorkflowJson | undefined = workflow && {
    ...workflow,
    subtasks: workflow.subtasks.map((subtask) => {
      const current = fate(subtask.id);
      // Work that was running when the process died has no result: it starts again.
      const status: SubtaskStatus = current.status === 'in progress' ? 'not started' : current.status;
      // An attempt that ended but whose verdict was never logged is not spent: it runs again under its own number,
      // so its recorded execute and verify calls are replayed and give the same verdict (a crash in that window
      // used to start a new attempt with new calls, and could exhaust the attempts and fail the run).
      const attempts = status === 'not started' && current.pendingOutput ? Math.min(current.attempts, current.pendingOutput.attempt - 1) : current.attempts;
      const { output: _old, ...rest } = subtask;
      return { ...rest, status, attempts, ...(status === 'completed' && current.output !== undefined ? { output: current.output } : {}) };
    }),
  };
  const failures = resumed
    ? resumed.subtasks.filter((s) => s.status === 'failed').map((s) => ({ id: s.id, reason: fate(s.id).reason ?? 'failed' }))
    : [];
  return {
    runId,
    task,
    model,
    settings,
    workflow: resumed,
    version,
    failures,
    replay,
    spent,
    lastAt,
    lastStatus,
    versions,
    artifacts,
    refused,
    completed: resumed?.subtasks.filter((s) => s.status === 'completed').length ?? 0,
    rounds,
  };
}
