/**
 * The live view of a run. On a TTY it redraws one line per subtask (state, attempts) under a header with calls
 * and cost; elsewhere it prints one plain line per notable event. Both read the same events as the store.
 */
import type { WeftEvent } from '../index.js';
import { teamOutcome } from './team-output.js';

interface Row {
  state: string;
  attempts: number;
  agent: string;
}

export interface ProgressView {
  readonly onEvent: (event: WeftEvent) => void;
  readonly close: () => void;
}

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
        case 'artifact-refused':
          write(`${at} refused artifact ${event.path} from ${event.taskId}: ${event.reason}`);
          break;
        case 'budget':
          if (event.exceeded) write(`${at} budget: ${event.exceeded}`);
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
  const rows = new Map<string, Row>();
  let runId = '';
  let model = '';
  let version = 0;
  let state = 'planning…';
  let calls = 0;
  let costUsd = 0;
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    timer = undefined;
    const width = Math.max(40, (stream.columns ?? 100) - 1);
    const lines = [
      `run ${runId}${version ? ` · plan v${version}` : ''} · ${state} · ${calls} calls · $${costUsd.toFixed(4)} · ${model}`,
    ];
    for (const [id, row] of rows)
      lines.push(
        `  ${symbol(row.state)} ${id} ${row.agent} ${row.state}${row.attempts > 1 ? ` (attempt ${row.attempts})` : ''}`,
      );
    const text = lines.map((line) => line.slice(0, width)).join('\n');
    stream.write(`${drawn > 0 ? `\u001b[${drawn}F\u001b[0J` : ''}${text}\n`);
    drawn = lines.length;
  };
  const schedule = () => {
    timer ??= setTimeout(draw, 80);
  };
  return {
    onEvent(event) {
      switch (event.type) {
        case 'run-start':
          runId = event.runId;
          model = event.model;
          break;
        case 'plan-chosen':
        case 'plan-update':
          for (const subtask of event.workflow.subtasks) {
            const row = rows.get(subtask.id);
            rows.set(subtask.id, {
              state: subtask.status ?? row?.state ?? 'not started',
              attempts: subtask.attempts ?? row?.attempts ?? 0,
              agent: subtask.agent,
            });
          }
          for (const id of [...rows.keys()]) if (!event.workflow.subtasks.some((s) => s.id === id)) rows.delete(id);
          version = event.version;
          state = 'running';
          break;
        case 'task-start': {
          const row = rows.get(event.taskId);
          if (row) {
            row.state = 'running';
            row.attempts = event.attempt;
          }
          break;
        }
        case 'task-end': {
          const row = rows.get(event.taskId);
          if (row) row.state = event.status === 'failed' ? 'failed' : 'verifying';
          break;
        }
        case 'task-verify': {
          const row = rows.get(event.taskId);
          if (row) row.state = event.verdict === 'accept' ? 'completed' : event.verdict;
          break;
        }
        case 'call':
          calls += 1;
          costUsd += event.costUsd;
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
