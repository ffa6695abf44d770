/**
 * One line per tool call of a run, as `weft show`, report.md and the live view print them (pure): the tool, its
 * arguments as the log has them (secret ones redacted), and how it ended. Long values are clipped: the log and
 * `weft show --json` have them whole.
 */
import type { WeftEvent } from './events.js';
import { clip } from '../text/clip.js';

const MAX_ARGS = 120;
const MAX_RESULT = 160;
/** A tool name the model made up can be any length (the log keeps it whole). */
const MAX_NAME = 64;

export interface ToolCallView {
  readonly taskId: string;
  readonly attempt: number;
  readonly sequence: number;
  readonly name: string;
  readonly args: unknown;
  /** When the call started (ms since the run started). */
  readonly at: number;
  /** A model answered it in place of the API (a `kind: simulated` tool). */
  readonly simulated?: boolean;
  /** Undefined while the call runs (or when the process died during it). */
  readonly end?: Extract<WeftEvent, { type: 'tool-result' }>;
}

/** The tool calls of a log in the order they started, each with its end when there is one. */
export function toolCallViews(events: Iterable<WeftEvent>): ToolCallView[] {
  const views: ToolCallView[] = [];
  const byKey = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'tool-call') {
      byKey.set(JSON.stringify([event.taskId, event.attempt, event.sequence]), views.length);
      views.push({
        taskId: event.taskId,
        attempt: event.attempt,
        sequence: event.sequence,
        name: event.name,
        args: event.args,
        at: event.at,
        ...(event.simulated ? { simulated: true } : {}),
      });
    } else if (event.type === 'tool-result') {
      const index = byKey.get(JSON.stringify([event.taskId, event.attempt, event.sequence]));
      if (index !== undefined) views[index] = { ...views[index]!, end: event };
    }
  }
  return views;
}

/** `search_orders {"q":"lamp"} → ok 12 ms: [{"id":7,…` */
export function toolCallLine(view: ToolCallView): string {
  const head = `${clip(oneLine(view.name), MAX_NAME)}${view.simulated ? ' [simulated]' : ''} ${clip(oneLine(json(view.args)), MAX_ARGS)}`;
  const end = view.end;
  if (!end) return `${head} → no result recorded`;
  const took = `${Math.round(end.durationMs)} ms`;
  if (!end.ok) return `${head} → ${end.code ?? 'error'} ${took}: ${clip(oneLine(end.error ?? ''), MAX_RESULT)}`;
  const result = typeof end.result === 'string' ? end.result : json(end.result);
  return `${head} → ok ${took}${end.truncated ? ' (truncated)' : ''}: ${clip(oneLine(result), MAX_RESULT)}`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/**
 * One line, and nothing a terminal would act on: a name the model made up or a result from someone's server may
 * carry escape sequences (clear the screen, set the title), shown as `\u001b`.
 */
function oneLine(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
