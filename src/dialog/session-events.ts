/**
 * What a conversation records: every user message, controller guidance and verdict, model call, tool
 * call and reply is an event in the session's log (SessionStore), in order. The state (dialog-state.ts), the
 * transcript (`weft show-session`) and a resume are folds of it. `at` is milliseconds since the session started.
 */
import type { JsonValue } from '../tools/tool.js';

/**
 * The FlowAgent paper's three out-of-workflow categories, the built-in taxonomy's ids (oow-taxonomy.ts); a taxonomy
 * file may name others.
 */
export const OOW_CATEGORIES = ['intent_switching', 'procedure_jumping', 'irrelevant_answering'] as const;
/** A category id of the taxonomy in use. */
export type OowCategory = string;
/** An out-of-workflow move: `intent_switching/detail_switching`, or a category alone (the paper's assignment). */
export interface OowTag {
  readonly category: OowCategory;
  readonly subtype?: string;
}

export type SessionEvent =
  | {
      readonly type: 'session-start';
      readonly at: number;
      readonly procedure: string;
      readonly pdlPath: string;
      readonly pdlSha256: string;
      readonly model: string;
      readonly modelKind: 'real' | 'scripted' | 'sim';
      /** APIs a model answers in place of the API (`--simulate-apis`, `kind: simulated` tools), with that model. */
      readonly simulatedApis?: readonly string[];
      readonly apiModel?: string;
      /** Names of the active controllers, with the halves that run. */
      readonly controllers: readonly { readonly name: string; readonly pre: boolean; readonly post: boolean }[];
      readonly maxActionsPerTurn: number;
    }
  /** A `weft chat --session ID` (or `createConversation` with `sessionId`) took the session up again. */
  | { readonly type: 'session-resume'; readonly at: number; readonly pdlSha256: string; readonly model: string }
  | {
      readonly type: 'user-message';
      readonly at: number;
      readonly turn: number;
      readonly text: string;
      readonly oow?: OowTag;
    }
  /** A user message refused before the bot saw it (too large, binary), with why; the session is unchanged. */
  | { readonly type: 'user-message-refused'; readonly at: number; readonly turn: number; readonly reason: string }
  | {
      readonly type: 'guidance';
      readonly at: number;
      readonly turn: number;
      /** The decision it guides, from 1 within the turn. */
      readonly attempt: number;
      readonly controller: string;
      readonly text: string;
    }
  | {
      readonly type: 'model-call';
      readonly at: number;
      readonly turn: number;
      readonly attempt: number;
      readonly model: string;
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly costUsd: number;
      readonly ms: number;
      /** Set when the call failed (the turn ends with an apology and the session stays usable). */
      readonly error?: string;
    }
  | {
      readonly type: 'decision';
      readonly at: number;
      readonly turn: number;
      readonly attempt: number;
      /** The model's reasoning, when it gave one (shown with `--verbose`). */
      readonly thought?: string;
      readonly action:
        | { readonly kind: 'tool'; readonly callId: string; readonly name: string; readonly args: JsonValue }
        | { readonly kind: 'reply'; readonly text: string };
    }
  | {
      readonly type: 'verdict';
      readonly at: number;
      readonly turn: number;
      readonly attempt: number;
      readonly controller: string;
      /** `tool:<name>` or `reply`. */
      readonly action: string;
      readonly accepted: boolean;
      readonly reason?: string;
    }
  /** Written before the API is called, so that a crash mid-call is known on resume (write-ahead). */
  | {
      readonly type: 'tool-call';
      readonly at: number;
      readonly turn: number;
      readonly callId: string;
      readonly name: string;
      /** Secret arguments (a tool's `secretArgs`) are `[redacted]` here. */
      readonly args: JsonValue;
      /** Whether the PDL preconditions of the API had all succeeded when it was called (false: a violation). */
      readonly preconditionsMet: boolean;
      /** The API is simulated: a model answers it (`--simulate-apis`, a `kind: simulated` tool), not the API. */
      readonly simulated?: boolean;
    }
  | {
      readonly type: 'tool-result';
      readonly at: number;
      readonly turn: number;
      readonly callId: string;
      readonly name: string;
      readonly ok: boolean;
      readonly result?: JsonValue;
      readonly error?: string;
      /**
       * The call may or may not have taken effect: it was interrupted (Weft stopped while it ran; recorded on
       * resume) or timed out. Such a call of an API that is not idempotent is not made again with the same arguments.
       */
      readonly unknownOutcome?: true;
      readonly ms: number;
      /** For a simulated API: the model calls that answered it, with what they cost. */
      readonly simulation?: SimulationRecord;
    }
  | {
      readonly type: 'bot-reply';
      readonly at: number;
      readonly turn: number;
      readonly text: string;
      /** The reply was cut while streaming: `text` is what had arrived (conversation-types.ts, CutReply). */
      readonly cut?: { readonly chars: number; readonly reason: string };
    }
  | {
      readonly type: 'turn-end';
      readonly at: number;
      readonly turn: number;
      /** Tool calls executed in the turn. */
      readonly actions: number;
      readonly rejections: number;
      /** true when the action limit was reached without a reply (the bot then apologised). */
      readonly exhausted: boolean;
    }
  | { readonly type: 'session-end'; readonly at: number; readonly reason: 'user' | 'bot' | 'turn-limit' }
  /**
   * A budget (calls, tokens, cost, wall time) stopped the session here; it stays open, and a turn cut short is
   * pending (`weft chat --session ID` with a larger budget goes on). `field` names the budget as it was given
   * (`--max-calls`, `budget.maxCalls`); the usage is the budget's, which for `weft simulate` is the whole batch's.
   */
  | {
      readonly type: 'budget-stop';
      readonly at: number;
      readonly turn: number;
      readonly budget: 'maxCalls' | 'maxTokens' | 'maxCostUsd' | 'maxWallMs';
      readonly field: string;
      readonly exceeded: string;
      readonly calls: number;
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly costUsd: number;
      readonly elapsedMs: number;
    };

export type SessionEventType = SessionEvent['type'];

/** What answering one simulated API call cost. */
export interface SimulationRecord {
  readonly model: string;
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}
