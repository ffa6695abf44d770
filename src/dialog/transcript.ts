/**
 * A session as people read it (`weft show-session`, `weft chat --verbose`): its events folded into transcript
 * entries with totals (pure). Thoughts, guidance and accepted verdicts are detail that only the verbose view shows.
 */
import { inertText } from '../text/inert-text.js';
import type { JsonValue } from '../tools/tool.js';
import { oowLabel } from './oow.js';
import type { OowTag, SessionEvent } from './session-events.js';
import { clip } from '../text/clip.js';

export type TranscriptEntry =
  | { readonly turn: number; readonly role: 'user'; readonly text: string; readonly oow?: OowTag }
  | { readonly turn: number; readonly role: 'user-refused'; readonly reason: string }
  | {
      readonly turn: number;
      readonly role: 'bot';
      readonly text: string;
      /** The reply was cut while streaming; `text` is what had arrived. */
      readonly cut?: { readonly chars: number; readonly reason: string };
    }
  | { readonly turn: number; readonly role: 'thought'; readonly text: string }
  | { readonly turn: number; readonly role: 'guidance'; readonly controller: string; readonly text: string }
  | {
      readonly turn: number;
      readonly role: 'tool';
      readonly callId: string;
      readonly name: string;
      readonly args: JsonValue;
      readonly preconditionsMet: boolean;
      /** A model answered it in place of the API. */
      readonly simulated?: boolean;
      /** Absent while the call has no result (a crash mid-call, before a resume recorded it). */
      readonly ok?: boolean;
      readonly result?: JsonValue;
      readonly error?: string;
      /** It may or may not have taken effect (interrupted, or timed out). */
      readonly unknownOutcome?: true;
    }
  | {
      readonly turn: number;
      readonly role: 'verdict';
      readonly controller: string;
      readonly action: string;
      readonly accepted: boolean;
      readonly reason?: string;
    }
  | { readonly turn: number; readonly role: 'end'; readonly reason: string }
  /** A budget stopped the session (it can go on with a larger one). */
  | { readonly turn: number; readonly role: 'budget'; readonly exceeded: string; readonly field: string };

export interface SessionTotals {
  readonly turns: number;
  readonly toolCalls: number;
  readonly failedToolCalls: number;
  /** API calls a model answered in place of the API (`--simulate-apis`). */
  readonly simulatedToolCalls: number;
  readonly rejections: number;
  /** Tool calls executed while their PDL preconditions had not all succeeded. */
  readonly violationsExecuted: number;
  readonly modelCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

export interface Transcript {
  readonly entries: readonly TranscriptEntry[];
  readonly totals: SessionTotals;
}

export function transcriptOf(events: Iterable<SessionEvent>): Transcript {
  const entries: TranscriptEntry[] = [];
  const calls = new Map<string, number>();
  let turns = 0;
  let toolCalls = 0;
  let failedToolCalls = 0;
  let simulatedToolCalls = 0;
  let rejections = 0;
  let violationsExecuted = 0;
  let modelCalls = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  for (const event of events) {
    switch (event.type) {
      case 'user-message':
        turns = Math.max(turns, event.turn);
        entries.push({ turn: event.turn, role: 'user', text: event.text, ...(event.oow ? { oow: event.oow } : {}) });
        break;
      case 'user-message-refused':
        entries.push({ turn: event.turn, role: 'user-refused', reason: event.reason });
        break;
      case 'guidance':
        entries.push({ turn: event.turn, role: 'guidance', controller: event.controller, text: event.text });
        break;
      case 'model-call':
        modelCalls++;
        inputTokens += event.inputTokens;
        outputTokens += event.outputTokens;
        costUsd += event.costUsd;
        break;
      case 'decision':
        if (event.thought) entries.push({ turn: event.turn, role: 'thought', text: event.thought });
        break;
      case 'verdict':
        if (!event.accepted) rejections++;
        entries.push({
          turn: event.turn,
          role: 'verdict',
          controller: event.controller,
          action: event.action,
          accepted: event.accepted,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        });
        break;
      case 'tool-call':
        toolCalls++;
        if (!event.preconditionsMet) violationsExecuted++;
        if (event.simulated) simulatedToolCalls++;
        calls.set(event.callId, entries.length);
        entries.push({
          turn: event.turn,
          role: 'tool',
          callId: event.callId,
          name: event.name,
          args: event.args,
          preconditionsMet: event.preconditionsMet,
          ...(event.simulated ? { simulated: true } : {}),
        });
        break;
      case 'tool-result': {
        const index = calls.get(event.callId);
        const entry = index === undefined ? undefined : entries[index];
        if (!event.ok) failedToolCalls++;
        // The model calls that answered a simulated API are model calls of the session too.
        if (event.simulation) {
          modelCalls += event.simulation.calls;
          inputTokens += event.simulation.inputTokens;
          outputTokens += event.simulation.outputTokens;
          costUsd += event.simulation.costUsd;
        }
        if (entry?.role === 'tool') {
          entries[index as number] = {
            ...entry,
            ok: event.ok,
            ...(event.result === undefined ? {} : { result: event.result }),
            ...(event.error === undefined ? {} : { error: event.error }),
            ...(event.unknownOutcome ? { unknownOutcome: true as const } : {}),
          };
        }
        break;
      }
      case 'bot-reply':
        entries.push({ turn: event.turn, role: 'bot', text: event.text, ...(event.cut ? { cut: event.cut } : {}) });
        break;
      case 'session-end':
        entries.push({ turn: turns, role: 'end', reason: event.reason });
        break;
      case 'budget-stop':
        entries.push({ turn: event.turn, role: 'budget', exceeded: event.exceeded, field: event.field });
        break;
      default:
        break;
    }
  }
  return {
    entries,
    totals: {
      turns,
      toolCalls,
      failedToolCalls,
      simulatedToolCalls,
      rejections,
      violationsExecuted,
      modelCalls,
      inputTokens,
      outputTokens,
      costUsd,
    },
  };
}

/**
 * One entry as a line of text; undefined for detail the non-verbose view leaves out. Made inert: users, models
 * and servers supply its text, and it goes to a terminal.
 */
export function formatTranscriptEntry(entry: TranscriptEntry, verbose: boolean): string | undefined {
  const line = entryLine(entry, verbose);
  return line === undefined ? undefined : inertText(line);
}

function entryLine(entry: TranscriptEntry, verbose: boolean): string | undefined {
  switch (entry.role) {
    case 'user':
      return `user> ${entry.text}${entry.oow ? `   [out of workflow: ${oowLabel(entry.oow)}]` : ''}`;
    case 'user-refused':
      return `user> (message refused: ${entry.reason})`;
    case 'bot':
      return `bot> ${entry.text}${entry.cut ? ` ${cutNote(entry.cut.chars)}` : ''}`;
    case 'thought':
      return verbose ? `  (thought) ${entry.text}` : undefined;
    case 'guidance':
      return verbose ? `  (${entry.controller}) ${entry.text.replaceAll('\n', '\n    ')}` : undefined;
    case 'tool': {
      const outcome =
        entry.ok === undefined
          ? 'no result recorded'
          : entry.ok
            ? clip(JSON.stringify(entry.result ?? null), verbose ? 2000 : 200)
            : `error: ${entry.error ?? 'failed'}`;
      const flag = `${entry.simulated ? ' [simulated]' : ''}${entry.preconditionsMet ? '' : ' [preconditions not met]'}`;
      return `  → ${entry.name}(${clip(JSON.stringify(entry.args), verbose ? 2000 : 200)})${flag} = ${outcome}`;
    }
    case 'verdict':
      if (entry.accepted) return verbose ? `  ✓ ${entry.controller} accepted ${entry.action}` : undefined;
      return `  ✗ ${entry.controller} refused ${entry.action}: ${entry.reason ?? ''}`;
    case 'end':
      return `(session ended: ${entry.reason === 'user' ? 'the user left' : entry.reason === 'bot' ? 'the bot closed it' : 'turn limit'})`;
    case 'budget':
      return `(stopped by the budget: ${entry.exceeded} (${entry.field}); the session is open and can go on with a larger one)`;
  }
}

/** One event as the live `--verbose` view shows it (detail only: user messages and replies are printed apart). */
export function formatSessionEvent(event: SessionEvent): string | undefined {
  const line = eventLine(event);
  return line === undefined ? undefined : inertText(line);
}

function eventLine(event: SessionEvent): string | undefined {
  switch (event.type) {
    case 'guidance':
    case 'decision':
    case 'verdict': {
      // The same lines as the transcript's verbose view; only API calls show live as call and result apart.
      const [entry] = transcriptOf([event]).entries;
      return entry === undefined ? undefined : entryLine(entry, true);
    }
    case 'tool-call':
      return `  → ${event.name}(${clip(JSON.stringify(event.args), 2000)})${event.simulated ? ' [simulated]' : ''}${event.preconditionsMet ? '' : ' [preconditions not met]'}`;
    case 'tool-result':
      return event.ok
        ? `  ← ${event.name} = ${clip(JSON.stringify(event.result ?? null), 2000)} (${event.ms} ms)`
        : `  ← ${event.name} failed: ${event.error ?? 'error'}`;
    case 'model-call':
      return event.error ? `  (model call failed: ${event.error})` : undefined;
    default:
      return undefined;
  }
}

/** What a reply cut while streaming is followed by, in the chat and in the transcript. */
export function cutNote(chars: number): string {
  return `[reply cut after ${chars.toLocaleString('en-US')} characters]`;
}
