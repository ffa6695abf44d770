/**
 * The live view of a run. On a TTY it redraws one line per subtask (state, attempts) under a header with calls
 * and cost; elsewhere it prints one plain line per notable event. Both read the same events as the store.
 */
import {
  type Fates,
  foldFate,
  inertText,
  type StreamEvent,
  type SubtaskFate,
  TOOL_FAILURE_MARK,
  toolCallCount,
  type WeftEvent,
} from '../../internal.js';
import { teamOutcome } from '../team/team-output.js';

/**
 * What a row shows of a subtask's fate (the same fold as resume and the summary, run/subtask-fate.ts): running
 * until its attempt ends, verifying until the verdict.
 */
function rowState(fate: SubtaskFate | undefined): string {
  if (!fate) return 'not started';
  if (fate.status === 'in progress') return fate.ended >= fate.started ? 'verifying' : 'running';
  return fate.status;
}

export interface ProgressView {
  readonly onEvent: (event: WeftEvent) => void;
  /**
   * Hears a subtask agent's reply as it streams, to show the end of it on the subtask's row. Only the live view
   * (a terminal) has it: the plain view and --json show outputs when they are recorded.
   */
  readonly onStream?: (taskId: string, event: StreamEvent) => void;
  readonly close: () => void;
}

/** How much of a streaming reply a row keeps: its tail, enough for any terminal's width. */
const PARTIAL_TAIL_CHARS = 240;

export function createProgressView(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  options: { live?: boolean } = {},
): ProgressView {
  const live = options.live ?? stream.isTTY === true;
  return live ? liveView(stream) : plainView(stream);
}

function plainView(stream: NodeJS.WritableStream): ProgressView {
  const write = (line: string) => stream.write(`${line}\n`);
  return {
    onEvent(event) {
      const at = `[${(event.at / 1000).toFixed(1)}s]`;
      switch (event.type) {
        case 'run-start':
          write(`${at} run ${event.runId} with ${event.model} (${event.strategy})`);
          break;
        case 'plan-candidates':
          write(
            `${at} ${event.purpose} candidates: ${event.candidates.map((c) => (c.error ? `#${c.index + 1} unusable` : `#${c.index + 1} P=${c.parallelism.toFixed(2)} C=${c.dependencyComplexity.toFixed(2)}`)).join(', ')}`,
          );
          break;
        case 'plan-chosen':
          write(
            `${at} plan v${event.version}: candidate #${event.index + 1}, ${event.workflow.subtasks.length} subtasks`,
          );
          break;
        case 'task-start':
          write(
            `${at} start ${event.taskId} (${event.agent}${event.clone > 0 ? ` clone ${event.clone}` : ''}, attempt ${event.attempt})`,
          );
          break;
        case 'task-end':
          if (event.status === 'failed') write(`${at} failed ${event.taskId}: ${event.error ?? ''}`);
          break;
        case 'task-verify':
          write(
            `${at} ${event.verdict === 'accept' ? 'done' : event.verdict} ${event.taskId}${event.verdict === 'accept' ? '' : `: ${event.reason}`}`,
          );
          break;
        case 'team':
          write(
            `${at} team ${event.team} on ${event.taskId}: ${teamOutcome(event)}${event.selection.optimized ? `, optimised team ${event.members.join(', ')}` : ''}`,
          );
          break;
        case 'plan-update':
          write(`${at} plan v${event.version}: ${event.cause}`);
          break;
        case 'tool-result': {
          const how = event.ok ? 'ok' : `${event.code ?? 'error'}: ${(event.error ?? '').slice(0, 120)}`;
          write(
            `${at} tool ${event.name} for ${event.taskId} #${event.sequence + 1}: ${how} (${Math.round(event.durationMs)} ms)`,
          );
          break;
        }
        case 'artifact-refused':
          write(`${at} refused artifact ${event.path} from ${event.taskId}: ${event.reason}`);
          break;
        case 'budget-stop':
          write(`${at} budget: ${event.exceeded}`);
          break;
        case 'run-end':
          write(`${at} run ${event.status}${event.reason ? `: ${event.reason}` : ''}`);
          break;
        default:
          break;
      }
    },
    close() {},
  };
}

function liveView(stream: NodeJS.WritableStream & { columns?: number }): ProgressView {
  const fates: Fates = new Map();
  /** The subtasks of the latest plan version, in its order, with their agents. */
  let subtasks: readonly { readonly id: string; readonly agent: string }[] = [];
  let runId = '';
  let model = '';
  let version = 0;
  let state = 'planning…';
  let calls = 0;
  let toolCalls = 0;
  let toolCallsFailed = 0;
  /** Failed tool calls by subtask: a completed row with some is marked. */
  const failedTools = new Map<string, number>();
  /** The tool call each subtask is waiting on, shown on its row. */
  const runningTools = new Map<string, string>();
  /** The end of the reply each running subtask's agent is streaming, shown on its row. */
  const partial = new Map<string, string>();
  let costUsd = 0;
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    timer = undefined;
    const width = Math.max(40, (stream.columns ?? 100) - 1);
    const lines = [
      `run ${runId}${version ? ` · plan v${version}` : ''} · ${state} · ${calls} calls${toolCalls > 0 ? ` · ${toolCallCount(toolCalls, toolCallsFailed)}` : ''} · $${costUsd.toFixed(4)} · ${model}`,
    ];
    for (const { id, agent } of subtasks) {
      const fate = fates.get(id);
      const shown = rowState(fate);
      const attempts = Math.max(fate?.started ?? 0, fate?.ended ?? 0);
      const tool = shown === 'running' ? runningTools.get(id) : undefined;
      const tail = shown === 'running' && !tool ? partial.get(id) : undefined;
      const failed = failedTools.get(id) ?? 0;
      const marked = shown === 'completed' && failed > 0;
      const row = `  ${marked ? TOOL_FAILURE_MARK : symbol(shown)} ${id} ${agent} ${shown}${attempts > 1 ? ` (attempt ${attempts})` : ''}${tool ? ` · tool ${tool}` : ''}${failed > 0 ? ` · ${failed} tool call${failed === 1 ? '' : 's'} failed` : ''}`;
      lines.push(tail ? `${row}${streamingTail(tail, width - row.length)}` : row);
    }
    const text = lines.map((line) => line.slice(0, width)).join('\n');
    stream.write(`${drawn > 0 ? `\u001b[${drawn}F\u001b[0J` : ''}${text}\n`);
    drawn = lines.length;
  };
  const schedule = () => {
    timer ??= setTimeout(draw, 80);
  };
  return {
    onStream(taskId, event) {
      if (event.kind === 'discard') partial.delete(taskId);
      else partial.set(taskId, ((partial.get(taskId) ?? '') + event.text).slice(-PARTIAL_TAIL_CHARS));
      schedule();
    },
    onEvent(event) {
      foldFate(fates, event);
      if ((event.type === 'task-start' || event.type === 'task-end') && 'taskId' in event) partial.delete(event.taskId);
      switch (event.type) {
        case 'run-start':
          runId = event.runId;
          model = event.model;
          break;
        case 'plan-chosen':
        case 'plan-update':
          subtasks = event.workflow.subtasks.map((subtask) => ({ id: subtask.id, agent: subtask.agent }));
          version = event.version;
          state = 'running';
          break;
        case 'model-call':
          calls += 1;
          costUsd += event.costUsd;
          break;
        case 'tool-call':
          toolCalls += 1;
          runningTools.set(event.taskId, event.name);
          break;
        case 'tool-result':
          runningTools.delete(event.taskId);
          if (!event.ok) {
            toolCallsFailed += 1;
            failedTools.set(event.taskId, (failedTools.get(event.taskId) ?? 0) + 1);
          }
          break;
        case 'run-end':
          state = `${event.status}${event.reason ? `: ${event.reason}` : ''}`;
          break;
        default:
          break;
      }
      schedule();
    },
    close() {
      if (timer) clearTimeout(timer);
      draw();
    },
  };
}

/**
 * The end of a streaming reply as a row shows it: on one line, made inert (a model's text goes to the terminal),
 * its latest `room` characters; nothing when there is no room.
 */
function streamingTail(text: string, room: number): string {
  const line = inertText(text.replace(/\s+/g, ' ').trim());
  const space = room - 4;
  if (line === '' || space < 8) return '';
  return line.length <= space ? ` · ${line}` : ` · …${line.slice(line.length - space + 1)}`;
}

function symbol(state: string): string {
  switch (state) {
    case 'completed':
      return '✔';
    case 'failed':
      return '✖';
    case 'running':
      return '▶';
    case 'verifying':
      return '…';
    default:
      return '·';
  }
}
