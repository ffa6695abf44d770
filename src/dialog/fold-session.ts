/**
 * A session's state and the bot's view of the conversation, folded from its events (pure). The engine keeps both
 * up to date as it records events, and a resumed session starts from this fold, so the two cannot differ.
 * The history holds what happened, not what was refused: user messages, executed API calls with their results,
 * and the replies the user saw. Rejected proposals live in the log (and in the next decision's guidance) only.
 */
import type { ChatMessage } from '../llm/chat-model.js';
import type { JsonValue } from '../tools/tool.js';
import type { ApiCallRecord, ControllerDecisionRecord, DialogState } from './dialog-state.js';
import type { SessionEvent } from './session-events.js';

/** The error a call gets when a resume finds it started and never finished (its `tool-result` says `unknownOutcome`). */
export const INTERRUPTED_CALL =
  'interrupted: Weft stopped while this call was running, so whether it took effect is unknown; it was not repeated (check with an API that reads the state before trying again)';

export interface FoldedSession {
  readonly state: DialogState;
  readonly history: readonly ChatMessage[];
  /** A user turn whose reply was never recorded (a crash or Ctrl-C mid-turn). */
  readonly pendingTurn: boolean;
  /** `tool-call`s without a `tool-result`: started, outcome unknown. */
  readonly unfinishedCalls: readonly {
    readonly turn: number;
    readonly callId: string;
    readonly name: string;
    readonly args: JsonValue;
  }[];
}

export class SessionFold {
  turn = 0;
  ended = false;
  pendingTurn = false;
  // No prototype: a `__proto__` field in an argument or a result is a slot like any other, not a prototype.
  readonly slots: Record<string, JsonValue> = Object.create(null) as Record<string, JsonValue>;
  readonly calls: ApiCallRecord[] = [];
  readonly decisions: ControllerDecisionRecord[] = [];
  readonly history: ChatMessage[] = [];
  private readonly started = new Map<string, { turn: number; callId: string; name: string; args: JsonValue }>();

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'user-message':
        this.turn = event.turn;
        this.pendingTurn = true;
        this.history.push({ role: 'user', content: event.text });
        break;
      case 'verdict':
        this.decisions.push({
          turn: event.turn,
          controller: event.controller,
          action: event.action,
          accepted: event.accepted,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        });
        break;
      case 'tool-call':
        this.started.set(event.callId, { turn: event.turn, callId: event.callId, name: event.name, args: event.args });
        this.history.push({
          role: 'assistant',
          content: '',
          toolCalls: [{ id: event.callId, name: event.name, args: event.args }],
        });
        if (event.args !== null && typeof event.args === 'object' && !Array.isArray(event.args)) {
          Object.assign(this.slots, event.args);
        }
        break;
      case 'tool-result': {
        const call = this.started.get(event.callId);
        this.started.delete(event.callId);
        const args = call?.args ?? null;
        this.calls.push({
          turn: event.turn,
          callId: event.callId,
          name: event.name,
          args,
          ok: event.ok,
          ...(event.result === undefined ? {} : { result: event.result }),
          ...(event.error === undefined ? {} : { error: event.error }),
          // Logs written before `unknownOutcome` existed say so by the interrupted call's error alone.
          ...(event.unknownOutcome || (!event.ok && event.error === INTERRUPTED_CALL) ? { unknownOutcome: true } : {}),
        });
        if (event.ok && event.result !== null && typeof event.result === 'object' && !Array.isArray(event.result)) {
          Object.assign(this.slots, event.result);
        }
        this.history.push({
          role: 'tool',
          toolCallId: event.callId,
          name: event.name,
          content: event.ok
            ? typeof event.result === 'string'
              ? event.result
              : JSON.stringify(event.result ?? null)
            : (event.error ?? 'failed'),
          ...(event.ok ? {} : { isError: true }),
        });
        break;
      }
      case 'bot-reply':
        this.history.push({ role: 'assistant', content: event.text });
        break;
      case 'turn-end':
        this.pendingTurn = false;
        break;
      case 'session-end':
        this.ended = true;
        this.pendingTurn = false;
        break;
      default:
        break;
    }
  }

  get state(): DialogState {
    return {
      turn: this.turn,
      slots: { ...this.slots },
      calls: [...this.calls],
      decisions: [...this.decisions],
      ended: this.ended,
    };
  }

  get unfinishedCalls(): FoldedSession['unfinishedCalls'] {
    return [...this.started.values()];
  }
}

export function foldSession(events: Iterable<SessionEvent>): FoldedSession {
  const fold = new SessionFold();
  for (const event of events) fold.apply(event);
  return {
    state: fold.state,
    history: [...fold.history],
    pendingTurn: fold.pendingTurn,
    unfinishedCalls: fold.unfinishedCalls,
  };
}
