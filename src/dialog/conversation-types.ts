/**
 * The types of a conversation with a procedure: `createConversation(pdl, options)`
 * (create-conversation.ts) gives an object whose
 * `send(userMessage)` runs one user turn of paper Algorithm 1 — pre-decision controllers' guidance → the bot
 * chooses an API call or a reply → post-decision controllers may reject it (the bot retries with the reason) →
 * an accepted call is executed and the turn goes on → an accepted reply ends the turn — and returns the reply with
 * the events it recorded. Sessions are durable when a SessionStore is given (resume with `sessionId`).
 */
import type { ChatModel, StreamEvent } from '../llm/chat-model.js';
import type { Budget, ModelBudgetName } from '../runtime/budget.js';
import type { BudgetScope } from '../runtime/budget-scope.js';
import type { RunOwner } from '../store/run-store.js';
import type { Tool, ToolSet } from '../tools/tool.js';
import type { Controller, ControllerMode } from './controller.js';
import type { DialogState } from './dialog-state.js';
import type { Pdl } from './pdl.js';
import type { OowTag, SessionEvent } from './session-events.js';
import type { SessionStore } from './session-store.js';

export { DEFAULT_MAX_ACTIONS_PER_TURN, MAX_USER_MESSAGE_BYTES } from './conversation-limits.js';

export interface ConversationOptions {
  readonly model: ChatModel;
  /**
   * The APIs' tools: every PDL API must have one of the same name, unless `simulateApis` has a model answer the
   * APIs that have none (or only a declaration, as a FlowAgent tools spec gives).
   */
  readonly tools: ToolSet | readonly Tool[];
  /** Turn every API without a tool, or with a declaration only, into a simulated one (tools/simulated-api.ts). */
  readonly simulateApis?: boolean;
  /** The model that answers simulated APIs (default: the bot's, `model`). */
  readonly apiModel?: ChatModel;
  /** Extra controllers (a user's module); the built-in ones come from the PDL's `controllers:` settings. */
  readonly controllers?: readonly Controller[];
  /** `pre-only` = `--no-post-controllers`, `none` = `--no-controllers`. Default `all`. */
  readonly controllerMode?: ControllerMode;
  readonly maxActionsPerTurn?: number;
  /** Where the session is kept; without one it lives in memory only. */
  readonly store?: SessionStore;
  /** Resume this stored session (needs `store`); without it a new session is created. */
  readonly sessionId?: string;
  /** Recorded with a new session (e.g. the tools file, so a resume can load it again); plain JSON. */
  readonly sessionOptions?: Readonly<Record<string, unknown>>;
  /**
   * What keys the bot's calls for seeded models (the `sim:` bot's draws); default the session id, which is random.
   * `weft simulate` gives each simulated session's name, so a rerun with the same seeds repeats every session.
   */
  readonly seedKey?: string;
  /** The process holding the session (default: this one). */
  readonly owner?: RunOwner;
  /**
   * Calls, tokens, cost (USD) and wall time the conversation may spend: the bot's calls and the simulated APIs'
   * count. A resumed session counts on from the calls its log records; its wall time starts again. When one is
   * spent, the turn stops (a call in flight at the deadline is aborted), a `budget-stop` event is recorded, the
   * session stays open with the turn pending, and `send` throws WeftError BUDGET naming the budget.
   */
  readonly budget?: Budget;
  /** How the caller names each budget in that error (`--max-calls`); default `budget.maxCalls` and so on. */
  readonly budgetFields?: Partial<Record<ModelBudgetName, string>>;
  /**
   * A budget shared with other work (a batch of simulated sessions), instead of `budget`: its models are charged
   * to it, and the caller closes it.
   */
  readonly budgetScope?: BudgetScope;
  /** Called with each event as it is recorded (the CLI's `--verbose` view, a web service's stream). */
  readonly onEvent?: (event: SessionEvent) => void;
  readonly signal?: AbortSignal;
}

export interface SendOptions {
  /** Tags the message as an out-of-workflow move (simulated users). */
  readonly oow?: OowTag;
  readonly signal?: AbortSignal;
  /**
   * Hears the bot's reply as it arrives, for display. Only what the user is meant to read is sent (no reasoning,
   * no text beside a tool call); a piece that turns out not to be the reply (a refused proposal, a retried call)
   * is taken back with a `discard` of as many characters as were shown. The deltas kept make the returned `reply`
   * exactly. A model that does not stream sends the reply whole at the end of the turn.
   */
  readonly onStream?: (event: StreamEvent) => void;
}

/** A reply cut short while it was streaming: what had arrived is the reply, and this says so. */
export interface CutReply {
  /** How many characters of the reply had arrived. */
  readonly chars: number;
  /** Why it stopped: the call's error (`ABORTED: …`, `TIMEOUT: …`, `PROVIDER: …`, `BUDGET: …`). */
  readonly reason: string;
}

export interface TurnResult {
  /** What the bot says to the user. */
  readonly reply: string;
  /** The events this turn recorded, in order. */
  readonly events: readonly SessionEvent[];
  /** Whether the conversation has ended (the bot closed it or the turn limit steered it to a close). */
  readonly ended: boolean;
  /** Set when the reply was cut while streaming (Ctrl-C, a dropped connection, a timeout): `reply` is what came. */
  readonly cut?: CutReply;
}

export interface Conversation {
  readonly sessionId: string;
  readonly pdl: Pdl;
  readonly state: DialogState;
  /** Every event so far (resumed sessions: from their start). */
  readonly events: readonly SessionEvent[];
  /** A user turn recorded without its reply (the session was resumed after a crash or Ctrl-C mid-turn). */
  readonly pendingTurn: boolean;
  /** The resumed session was started with a PDL file whose text differed from this one. */
  readonly pdlChanged: boolean;
  send(userMessage: string, options?: SendOptions): Promise<TurnResult>;
  /** Finishes a pending turn (see `pendingTurn`): the bot goes on from where the log ends, repeating no API call. */
  continueTurn(options?: Pick<SendOptions, 'signal' | 'onStream'>): Promise<TurnResult>;
  /** The conversation's budget (its own or the shared one), when it has one: its usage, its deadline's signal. */
  readonly budget: BudgetScope | undefined;
  /**
   * Records that the budget stopped the session (`budget-stop`), once, when it is spent: for a budget spent outside
   * a turn (a simulated user's or the judge's call). `send` and `continueTurn` do it themselves.
   */
  markBudgetStop(): Promise<void>;
  /** Marks the session ended (the user left); idempotent. */
  end(reason?: 'user' | 'bot' | 'turn-limit'): Promise<void>;
  /** Lets go of the session (its owner) without ending it, so `weft chat --session ID` can take it up again. */
  close(): Promise<void>;
}
