/**
 * What a resumed run continues from, folded from its event log (pure). The log is the truth: the latest plan
 * version, then every subtask's fate after it. A subtask that was running at the crash runs again under the same
 * attempt number, so its recorded calls are replayed instead of repeated; a completed one keeps its output.
 */
import type { SubtaskStatus, WorkflowJson } from '../graph/workflow.js';
import type { ChatResult } from '../llm/chat-model.js';
import type { RunStatus, WeftEvent, WorkflowDiffSummary } from './events.js';
import type { Meter } from '../runtime/budget.js';
import { callKey } from '../runtime/metered-model.js';
import type { FailureReport } from '../plan/prompts.js';
import { foldEarlierAttempts, newEarlierAttemptsFold, type EarlierAttempts } from './earlier-attempts.js';
import { fateOf, foldFate, resumeReason, type Fates } from './subtask-fate.js';
import type { RunSettings } from './run-settings.js';
import { foldToolReplay, type ToolReplay } from './run-tools.js';

export interface ResumeState {
  readonly runId: string;
  readonly task: string;
  readonly model: string;
  readonly settings: RunSettings;
  /** The latest plan version with each subtask's state as the log left it; undefined when planning never finished. */
  readonly workflow: WorkflowJson | undefined;
  readonly version: number;
  /** Failures recorded after the latest plan version, waiting for a repair (with the failed output, cut). */
  readonly failures: readonly FailureReport[];
  /** Each subtask's earlier attempts that were not accepted: what its next attempt is told. */
  readonly earlier: ReadonlyMap<string, EarlierAttempts>;
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
  /** Recorded tool calls and results. */
  readonly tools: ToolReplay;
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
  const fates: Fates = new Map();
  const replay = new Map<string, ChatResult>();
  const spent: Meter = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const versions: { version: number; cause: string; diff?: WorkflowDiffSummary; workflow: WorkflowJson }[] = [];
  const artifacts: { taskId: string; path: string; bytes: number }[] = [];
  const refused: { taskId: string; path: string; reason: string }[] = [];
  const rounds = { updates: 0, repairs: 0 };
  const earlier = newEarlierAttemptsFold();
  for (const event of events) {
    lastAt = Math.max(lastAt, event.at);
    // Each subtask's fate is the shared fold's; this switch adds what only a resume needs.
    foldFate(fates, event);
    foldEarlierAttempts(earlier, event);
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
        versions.push(
          event.type === 'plan-update'
            ? { version: event.version, cause: event.cause, diff: event.diff, workflow: event.workflow }
            : {
                version: event.version,
                cause: settings.plan === 'given' ? 'given plan' : 'initial plan',
                workflow: event.workflow,
              },
        );
        break;
      case 'plan-candidates':
        if (event.purpose === 'update') {
          rounds.updates = Math.max(rounds.updates, event.round ?? rounds.updates + 1);
          if (event.repair) rounds.repairs += 1;
        }
        break;
      case 'artifact':
        artifacts.push({ taskId: event.taskId, path: event.path, bytes: event.bytes });
        break;
      case 'artifact-refused':
        refused.push({ taskId: event.taskId, path: event.path, reason: event.reason });
        break;
      case 'model-call':
        spent.calls += 1;
        spent.inputTokens += event.inputTokens;
        spent.outputTokens += event.outputTokens;
        spent.costUsd += event.costUsd;
        if (event.error === undefined && event.text !== undefined && event.sequence !== undefined) {
          replay.set(callKey(event.purpose, event.key, event.attempt, event.sequence), {
            text: event.text,
            usage: { inputTokens: event.inputTokens, outputTokens: event.outputTokens },
            model: event.model,
            ...(event.toolCalls && event.toolCalls.length > 0 ? { toolCalls: event.toolCalls } : {}),
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
      const current = fateOf(fates, subtask.id);
      // Work that was running when the process died has no result: it starts again; so does a failure a repair
      // round already sent back.
      const status: SubtaskStatus =
        current.status === 'in progress' || (current.status === 'failed' && current.sentBack)
          ? 'not started'
          : current.status;
      // An attempt that ended but whose verdict was never logged is not spent: it runs again under its own number,
      // so its recorded execute and verify calls are replayed and give the same verdict (a crash in that window
      // used to start a new attempt with new calls, and could exhaust the attempts and fail the run).
      const attempts =
        status === 'not started' && current.pendingOutput
          ? Math.min(current.ended, current.pendingOutput.attempt - 1)
          : current.ended;
      const { output: _old, ...rest } = subtask;
      return {
        ...rest,
        status,
        attempts,
        ...(status === 'completed' && current.output !== undefined ? { output: current.output } : {}),
      };
    }),
  };
  const failures = resumed
    ? resumed.subtasks
        .filter((s) => s.status === 'failed')
        .map((s): FailureReport => {
          const fate = fateOf(fates, s.id);
          // The failed attempt's output is the latest rejected one when that is the attempt that ended last (an
          // attempt that ended in an error has none).
          const last = earlier.lastRejected.get(s.id);
          return {
            id: s.id,
            reason: resumeReason(fate),
            ...(last !== undefined && last.attempt === fate.ended ? { output: last.output } : {}),
          };
        })
    : [];
  return {
    runId,
    task,
    model,
    settings,
    workflow: resumed,
    version,
    failures,
    earlier: earlier.earlier,
    replay,
    spent,
    lastAt,
    lastStatus,
    versions,
    artifacts,
    refused,
    completed: resumed?.subtasks.filter((s) => s.status === 'completed').length ?? 0,
    rounds,
    tools: foldToolReplay(events),
  };
}
