/**
 * DyLAN teams (docs/algorithms.md#dylan-teams): the shapes shared by the team file, the engine, importance scores and
 * optimisation. Types only; the functions live in files of their own in this folder.
 */
import type { TeamReformation } from '../run/events.js';

/** How agreement between two answers is decided (docs/algorithms.md#answer-agreement). */
export type AnswerKind = 'choice' | 'exact' | 'text' | 'code';

/** `llm`: a model with a role prompt. `tool`: a program, e.g. a code runner that tests candidate code. */
export type TeamAgentKind = 'llm' | 'tool';

export type TeamToolName = 'code-runner';

/**
 * When the 2/3 consensus of early stopping is checked (docs/teams.md#early-stopping). `answer`: a layer's agents are
 * called one at a time in a seeded shuffled order and the check runs after each answer once more than ⌊2N/3⌋ of
 * the layer's N agents have answered, as the authors' code does. `layer`: the layer's calls run at once and the
 * check runs when all have answered (at most the same number of calls, never fewer).
 */
export type StopCheck = 'answer' | 'layer';

export const STOP_CHECKS = ['answer', 'layer'] as const satisfies readonly StopCheck[];

/** One agent of a team file. */
export interface TeamAgentSpec {
  /** Unique within the team. */
  readonly name: string;
  /** The role prompt (for a tool: what it does, shown to the other agents). */
  readonly prompt: string;
  readonly kind: TeamAgentKind;
  /** Model spec for this agent; defaults to the team's, then to the command's `--model`. */
  readonly model?: string;
  /** For `kind: tool`. */
  readonly tool?: TeamToolName;
}

/** A team file (`team.yaml`), validated. */
export interface TeamSpec {
  readonly name: string;
  /** What the team is good for: the planner reads it when the team is offered to it (`weft run --team`). */
  readonly description?: string;
  readonly agents: readonly TeamAgentSpec[];
  /** Default model spec for its agents and the ranker. */
  readonly model?: string;
  /** At most this many layers (time steps). Default 4 (6 for code). */
  readonly maxSteps?: number;
  /** Reformation after this step: the ranker keeps the top `keep`. Default 3; 0 disables it. */
  readonly reformAt?: number;
  /** Agents kept by the reformation. Default 2. */
  readonly keep?: number;
  /** How answers are compared. Default `choice` when a query has choices, else `exact`. */
  readonly answerKind?: AnswerKind;
  /** When consensus is checked. Default `answer`. */
  readonly stopCheck?: StopCheck;
}

/** What a team is asked. */
export interface TeamQuery {
  readonly question: string;
  /** For multiple choice: the options, labelled A, B, C, … in prompts; the answer is a label. */
  readonly choices?: readonly string[];
  readonly kind: AnswerKind;
  /** The key importance scores are kept under with the team name, e.g. `mmlu` or `code`. Default `general`. */
  readonly taskType?: string;
  /**
   * For `code`: JavaScript tests a code-runner tool agent runs the candidates against (one test per statement,
   * e.g. `assert.equal(add(1, 2), 3)`). Without it the runner looks for a fenced test block in the question.
   */
  readonly tests?: string;
}

/** A predecessor's response as a node sees it (already shuffled). */
export interface PeerResponse {
  readonly agent: string;
  readonly answer: string;
  readonly text: string;
}

export interface AgentInput {
  readonly query: TeamQuery;
  /** 1-based time step. */
  readonly step: number;
  readonly peers: readonly PeerResponse[];
}

export interface AgentResponse {
  /** The extracted answer that agreement and the majority are decided on. */
  readonly answer: string;
  /** The whole response, passed on to the next layer. */
  readonly text: string;
  /** Ratings 1–5 of `peers`, in the same order; empty at step 1. */
  readonly ratings: readonly number[];
  /** False when the ratings could not be read and were replaced by equal weights (counted, never silent). */
  readonly ratingsParsed: boolean;
  /** Model calls this response took (0 for a tool). */
  readonly calls: number;
  /** For code answers checked by a tool: tests passed / run. */
  readonly tests?: { readonly passed: number; readonly total: number };
}

export interface TeamAgent {
  readonly name: string;
  readonly kind: TeamAgentKind;
  respond(input: AgentInput, signal?: AbortSignal): Promise<AgentResponse>;
}

/** One node of the T-FFN: an agent's response at one step. */
export interface TeamNode {
  readonly step: number;
  readonly agent: string;
  readonly answer: string;
  readonly text: string;
  /** The agents whose responses it saw, in the (shuffled) order shown. */
  readonly peers: readonly string[];
  readonly ratings: readonly number[];
  readonly ratingsParsed: boolean;
  readonly tests?: { readonly passed: number; readonly total: number };
}

/** How a team was reformed after a step; its shape is the run log's (`team` events record it). */
export type Reformation = TeamReformation;

/**
 * A tie at the final layer: more than one group of agreeing answers had the largest size, so the majority
 * alone did not decide the answer.
 */
export interface FinalTie {
  /** Each tied group's answer, the chosen one (`TeamResult.answer`) first. Never includes an empty answer. */
  readonly answers: readonly string[];
  /**
   * What picked the winner: the group whose first member comes first in the layer, and the layer is in
   * `ranker order` after a reformation (the ranker's order of `reformation.kept`, or its visible fallback's when
   * `reformation.fallback`), else in `team order` (the team file's order of the agents).
   */
  readonly brokenBy: 'ranker order' | 'team order';
}

export interface TeamResult {
  /** The majority answer of the last layer (see `tie` for how a tie was broken). */
  readonly answer: string;
  readonly stoppedAt: number;
  readonly stopReason: 'consensus' | 'max-steps';
  /** When consensus was checked; with `answer` the last layer holds only the agents called before the stop. */
  readonly stopCheck: StopCheck;
  readonly layers: readonly (readonly TeamNode[])[];
  readonly reformation?: Reformation;
  /** Set when the final answer won a tie (shown as "tie, broken by …" rather than "majority"). */
  readonly tie?: FinalTie;
  /** I(t, a) per layer: agent → contribution; each layer sums to 1 (docs/algorithms.md#importance-scores). */
  readonly importanceByLayer: readonly Readonly<Record<string, number>>[];
  /** Σ_t I(t, a) per agent. */
  readonly importance: Readonly<Record<string, number>>;
  /** Model calls: agents plus the ranker. DyLAN's efficiency measure is calls per query. */
  readonly calls: number;
  /** Responses whose ratings could not be read, and ranker answers that could not be used. */
  readonly ratingFallbacks: number;
  readonly rankerFallbacks: number;
}
