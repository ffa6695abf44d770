/**
 * What the node panel shows for one subtask, folded from the run's events: each attempt with its agent, times,
 * what a retry was told of the earlier attempts, verdicts, tool calls, model calls and cost, and how it ended. Pure; the route renders the output as Markdown.
 */
import type { AttemptFeedback, WeftEvent } from '../run/events.js';
import { toolCallViews } from '../run/tool-call-lines.js';
import { type TeamRunView, teamAgents } from './team-runs.js';

export interface ToolCallView {
  readonly sequence: number;
  readonly name: string;
  readonly args: unknown;
  readonly at: number;
  /** A model answered it in place of the API (a `kind: simulated` tool). */
  readonly simulated?: boolean;
  readonly ok?: boolean;
  readonly result?: unknown;
  readonly error?: string;
  /** The result was cut before the agent saw it. */
  readonly truncated?: boolean;
  /** TOOL, TIMEOUT or BAD_CALL when the call failed. */
  readonly code?: string;
  readonly durationMs?: number;
}

export interface AttemptView {
  readonly attempt: number;
  readonly agent: string;
  readonly clone: number;
  readonly startMs: number;
  /** A retry: what it was told of the earlier attempts (verdict and reason of each). */
  readonly feedback?: readonly AttemptFeedback[];
  endMs?: number;
  status?: 'completed' | 'failed';
  outcome?: string;
  error?: string;
  output?: string;
  readonly verdicts: { verdict: string; reason: string }[];
  readonly toolCalls: ToolCallView[];
  /** What the DyLAN team did, when the subtask's role is a team. */
  team?: TeamRunView;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface TaskDetail {
  readonly id: string;
  readonly objective?: string;
  readonly agent?: string;
  /** The output format the plan asks of it, when it names one. */
  readonly outputFormat?: string;
  readonly dependsOn: readonly string[];
  readonly attempts: readonly AttemptView[];
  readonly calls: number;
  readonly costUsd: number;
  /** Tool calls over all attempts, and the failed ones among them (as `weft show --json` counts them). */
  readonly toolCalls: number;
  readonly toolCallsFailed: number;
}

export function taskDetail(events: readonly WeftEvent[], taskId: string): TaskDetail {
  let subtask:
    | { objective: string; agent: string; dependsOn: readonly string[]; outputFormat?: string | undefined }
    | undefined;
  const attempts = new Map<number, AttemptView>();
  let calls = 0;
  let costUsd = 0;
  for (const event of events) {
    switch (event.type) {
      case 'plan-chosen':
      case 'plan-update': {
        const found = event.workflow.subtasks.find((candidate) => candidate.id === taskId);
        if (found) subtask = found;
        break;
      }
      case 'task-start':
        if (event.taskId !== taskId) break;
        attempts.set(event.attempt, {
          attempt: event.attempt,
          agent: event.agent,
          clone: event.clone,
          startMs: event.at,
          ...(event.feedback && event.feedback.length > 0 ? { feedback: event.feedback } : {}),
          verdicts: [],
          toolCalls: [],
          calls: 0,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
        });
        break;
      case 'task-end': {
        const attempt = event.taskId === taskId ? attempts.get(event.attempt) : undefined;
        if (!attempt) break;
        attempt.endMs = event.at;
        attempt.status = event.status;
        if (event.outcome !== undefined) attempt.outcome = event.outcome;
        if (event.error !== undefined) attempt.error = event.error;
        if (event.output !== undefined) attempt.output = event.output;
        break;
      }
      case 'task-verify':
        if (event.taskId === taskId)
          attempts.get(event.attempt)?.verdicts.push({ verdict: event.verdict, reason: event.reason });
        break;
      case 'model-call': {
        // A team's agents and ranker call without a taskId; their key names the subtask (`<id>/team/<agent>/…`).
        if (event.taskId !== taskId && !(event.taskId === undefined && event.key?.startsWith(`${taskId}/team/`))) break;
        calls += 1;
        costUsd += event.costUsd;
        const attempt = event.attempt !== undefined ? attempts.get(event.attempt) : undefined;
        if (!attempt) break;
        attempt.calls += 1;
        attempt.inputTokens += event.inputTokens;
        attempt.outputTokens += event.outputTokens;
        attempt.costUsd += event.costUsd;
        break;
      }
      case 'team': {
        const attempt = event.taskId === taskId ? attempts.get(event.attempt) : undefined;
        if (!attempt) break;
        const { type: _type, ...summary } = event;
        attempt.team = { ...summary, agents: teamAgents(summary) };
        break;
      }
      default:
        break;
    }
  }
  // Calls paired with their results by the run's own fold (`weft show` and report.md use it too).
  let toolCalls = 0;
  let toolCallsFailed = 0;
  for (const view of toolCallViews(events)) {
    if (view.taskId !== taskId) continue;
    const { end } = view;
    toolCalls += 1;
    if (end?.ok === false) toolCallsFailed += 1;
    attempts.get(view.attempt)?.toolCalls.push({
      sequence: view.sequence,
      name: view.name,
      args: view.args,
      at: view.at,
      ...(view.simulated ? { simulated: true } : {}),
      ...(end === undefined
        ? {}
        : {
            ok: end.ok,
            durationMs: end.durationMs,
            ...(end.result !== undefined ? { result: end.result } : {}),
            ...(end.error !== undefined ? { error: end.error } : {}),
            ...(end.truncated ? { truncated: true } : {}),
            ...(end.code !== undefined ? { code: end.code } : {}),
          }),
    });
  }
  return {
    id: taskId,
    ...(subtask ? { objective: subtask.objective, agent: subtask.agent } : {}),
    ...(subtask?.outputFormat !== undefined ? { outputFormat: subtask.outputFormat } : {}),
    dependsOn: subtask?.dependsOn ?? [],
    attempts: [...attempts.values()].sort((a, b) => a.attempt - b.attempt),
    calls,
    costUsd,
    toolCalls,
    toolCallsFailed,
  };
}
