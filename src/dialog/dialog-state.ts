/**
 * What a conversation knows about itself: the turn, the slots collected, every API call with its
 * outcome, and the controllers' decisions. The engine folds it from the session's events (fold-dialog-state.ts),
 * so a resumed session has the same state; controllers read it and never change it.
 */
import type { JsonValue } from '../tools/tool.js';

export interface ApiCallRecord {
  /** The turn it was made in, from 1. */
  readonly turn: number;
  readonly callId: string;
  readonly name: string;
  readonly args: JsonValue;
  /** true only when the API answered without an error: what the dependency controller counts. */
  readonly ok: boolean;
  readonly result?: JsonValue;
  readonly error?: string;
  /** It failed in a way that leaves its effect unknown (interrupted, or timed out): it may have taken effect. */
  readonly unknownOutcome?: true;
}

export interface ControllerDecisionRecord {
  readonly turn: number;
  readonly controller: string;
  /** The action it judged: `tool:<name>` or `reply`. */
  readonly action: string;
  readonly accepted: boolean;
  readonly reason?: string;
}

export interface DialogState {
  /** The current (or last) user turn, from 1; 0 before the first user message. */
  readonly turn: number;
  /**
   * Values known by name: arguments the bot sent to APIs and top-level fields of successful API results, latest
   * last. The bot reads slots from the user in its own words; these are what reached or came from the APIs.
   */
  readonly slots: Readonly<Record<string, JsonValue>>;
  readonly calls: readonly ApiCallRecord[];
  readonly decisions: readonly ControllerDecisionRecord[];
  /** Whether the conversation has ended (the user left or the bot closed it). */
  readonly ended: boolean;
}

export const EMPTY_DIALOG_STATE: DialogState = Object.freeze({
  turn: 0,
  slots: Object.freeze({}),
  calls: Object.freeze([]) as readonly ApiCallRecord[],
  decisions: Object.freeze([]) as readonly ControllerDecisionRecord[],
  ended: false,
});

/** Names of the APIs that have returned successfully at least once. */
export function succeededApis(state: Pick<DialogState, 'calls'>): Set<string> {
  return new Set(state.calls.filter((call) => call.ok).map((call) => call.name));
}
