/**
 * Session-level evaluation with simulated users (`weft simulate`): each session is a conversation with
 * the procedure (createConversation, the bot model and the APIs' tools) in which a user model plays a profile until
 * it says [END] or the turn limit; with probability `oow` a user turn is an out-of-workflow move (oow.ts: drawn per
 * turn, or the FlowAgent authors' category per profile, from a source seeded per session). A judge then scores the
 * session (judge-session.ts) and the session's events give tool F1 (the paper's and Weft's), violations and
 * rejections (session-metrics.ts).
 *
 * Decisions:
 * - Sessions run with bounded concurrency; profiles are cycled when there are more sessions than profiles, and
 *   each session has its own id (`<profile>#<n>`) that keys the user model's and the judge's calls and the OOW
 *   draws, so the same seed gives the same sessions whatever order they finish in.
 * - A session that fails (a model error the engine does not absorb, a judge that never answers usable JSON) is
 *   recorded with `error`; the batch goes on. What it did before failing still counts in the violation totals: an
 *   executed violation reached the API either way. A user error (a model that is not configured) stops the batch,
 *   since every session would fail the same way; an abort stops it and the report says `cancelled`.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isAbortError, isUserError, WeftError } from '../errors.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { randomFrom } from '../llm/seeded-random.js';
import { boundedMap } from '../runtime/bounded-map.js';
import { integerOption } from '../integer-option.js';
import type { Budget, ModelBudgetName } from '../runtime/budget.js';
import {
  batchBudgetReport,
  checkBudget,
  createBudgetScope,
  type BatchBudgetReport,
  type BudgetScope,
} from '../runtime/budget-scope.js';
import type { Tool, ToolSet } from '../tools/tool.js';
import type { Controller, ControllerMode } from './controller.js';
import { createConversation, type Conversation } from './conversation.js';
import { judgeSession } from './judge-session.js';
import { drawOowTurn, OOW_ASSIGNMENTS, type OowAssignment, oowLabel } from './oow.js';
import { DEFAULT_OOW_TAXONOMY, type OowTaxonomy } from './oow-taxonomy.js';
import type { Pdl } from './pdl.js';
import type { UserProfile } from './profiles.js';
import {
  countSessionEvents,
  multisetScores,
  paperSessionTool,
  setScores,
  summarizeByOow,
  summarizeSessions,
  type MetricsSummary,
  type OowSummaries,
  type SessionReport,
} from './session-metrics.js';
import type { SessionEvent } from './session-events.js';
import type { SessionStore } from './session-store.js';
import { simulateUserTurn, type SimulatedExchange } from './simulated-user.js';

/** Sessions in one batch at most: the report keeps every session's numbers. */
export const MAX_SESSIONS = 100_000;

export const SIMULATE_DEFAULTS = Object.freeze({ concurrency: 4, maxTurns: 20, seed: 1, oow: 0 });

export interface SimulateOptions {
  readonly profiles: readonly UserProfile[];
  /** The bot. */
  readonly model: ChatModel;
  readonly userModel: ChatModel;
  readonly judge: ChatModel;
  readonly tools: ToolSet | readonly Tool[];
  /** A model answers every API without a tool, or with a declaration only (createConversation's `simulateApis`). */
  readonly simulateApis?: boolean;
  /** The model that answers simulated APIs (default: the bot's). */
  readonly apiModel?: ChatModel;
  /** Extra controllers (a user's module), as createConversation takes them. */
  readonly controllers?: readonly Controller[];
  /** `pre-only` = `--no-post-controllers`, `none` = `--no-controllers`. */
  readonly controllerMode?: ControllerMode;
  /** P(a user turn is an out-of-workflow move), in [0, 1]. Default 0. */
  readonly oow?: number;
  /** The kinds of out-of-workflow move (default: the built-in 3 × 17, oow-taxonomy.ts). */
  readonly oowTaxonomy?: OowTaxonomy;
  /** `per-turn` (Weft's, default) or `per-profile` (the FlowAgent authors'): see oow.ts. */
  readonly oowAssignment?: OowAssignment;
  /** Sessions to run (default: one per profile). */
  readonly sessions?: number;
  readonly concurrency?: number;
  /** User turns per session at most (default 20). */
  readonly maxTurns?: number;
  /** Seeds the OOW draws (default 1). */
  readonly seed?: number;
  /** Keep the sessions there (`weft show-session ID`); without one they live in memory only. */
  readonly store?: SessionStore;
  /** The cost of a user-model or judge call (the bot's is in its model-call events). Default: free. */
  readonly costOf?: (result: ChatResult, model: ChatModel) => number;
  /**
   * Calls, tokens, cost (USD) and wall time the whole batch may spend: the bot's, the simulated APIs', the
   * simulated users' and the judge's calls all count. When one is spent the batch starts no more sessions, the
   * sessions under way stop at their next call (at the deadline, their calls in flight are aborted) and are kept
   * open in the store, marked by a `budget-stop` event; the report covers the sessions that finished and says
   * which budget stopped it (`budget.stopped`).
   */
  readonly budget?: Budget;
  /** How the caller names each budget (`--max-calls`); default `budget.maxCalls` and so on. */
  readonly budgetFields?: Partial<Record<ModelBudgetName, string>>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: SimulateProgress) => void;
}

export interface SimulateProgress {
  readonly done: number;
  readonly total: number;
  readonly session: SessionReport;
}

export interface SimulationReport extends MetricsSummary {
  /** True when any model is a `sim:` or `scripted:` one: the numbers describe the simulation, not a model. */
  readonly simulated: boolean;
  /** By out-of-workflow category: `none`, then the taxonomy's categories (see summarizeByOow). */
  readonly byOow: OowSummaries;
  /** How out-of-workflow turns were chosen. */
  readonly oowSetup: {
    readonly probability: number;
    readonly assignment: OowAssignment;
    /** `built-in` or the taxonomy file. */
    readonly taxonomy: string;
    readonly categories: readonly { readonly id: string; readonly name: string; readonly subtypes: number }[];
  };
  readonly perSession: readonly SessionReport[];
  /** Set when the batch was cancelled: the report covers the sessions that finished. */
  readonly cancelled?: { readonly finished: number; readonly of: number };
  /** With a budget: the limits, what the batch used, and whether it stopped the batch. */
  readonly budget?: BatchBudgetReport;
}

export async function simulateSessions(pdl: Pdl, options: SimulateOptions): Promise<SimulationReport> {
  if (options.profiles.length === 0)
    throw new WeftError('BAD_INPUT', 'no profiles to simulate', { location: { field: 'profiles' } });
  const total = integerOption(options.sessions ?? options.profiles.length, 'sessions', { min: 1 });
  if (total > MAX_SESSIONS)
    throw new WeftError('BAD_INPUT', `Expected at most ${MAX_SESSIONS} sessions, got ${total}`, {
      location: { field: 'sessions' },
    });
  const concurrency = integerOption(options.concurrency ?? SIMULATE_DEFAULTS.concurrency, 'concurrency', { min: 1 });
  const maxTurns = integerOption(options.maxTurns ?? SIMULATE_DEFAULTS.maxTurns, 'maxTurns', { min: 1 });
  const seed = integerOption(options.seed ?? SIMULATE_DEFAULTS.seed, 'seed', { min: 0 });
  const oow = options.oow ?? SIMULATE_DEFAULTS.oow;
  if (!(Number.isFinite(oow) && oow >= 0 && oow <= 1))
    throw new WeftError('BAD_INPUT', `Expected oow to be a probability between 0 and 1, got ${oow}`, {
      location: { field: 'oow' },
    });
  const taxonomy = options.oowTaxonomy ?? DEFAULT_OOW_TAXONOMY;
  if (taxonomy.categories.length === 0 || taxonomy.categories.some((category) => category.subtypes.length === 0))
    throw new WeftError('BAD_INPUT', 'the OOW taxonomy needs at least one category, each with a subtype', {
      location: { field: 'oowTaxonomy' },
    });
  const assignment = options.oowAssignment ?? 'per-turn';
  if (!(OOW_ASSIGNMENTS as readonly string[]).includes(assignment))
    throw new WeftError(
      'BAD_INPUT',
      `Expected oowAssignment to be one of ${OOW_ASSIGNMENTS.join(', ')}, got ${String(assignment)}`,
      { location: { field: 'oowAssignment' } },
    );

  if (options.budget) checkBudget(options.budget, options.budgetFields);

  // One budget for the batch: every model of every session is charged to it.
  const scope = options.budget
    ? createBudgetScope({ budget: options.budget, ...(options.budgetFields ? { fields: options.budgetFields } : {}) })
    : undefined;
  const costOf = options.costOf ?? (() => 0);
  const charged = (model: ChatModel) => (scope ? scope.metered(model, (result) => costOf(result, model)) : model);
  const models: SessionModels = { userModel: charged(options.userModel), judge: charged(options.judge), scope };
  const unfinished: string[] = [];
  const reports: { index: number; report: SessionReport }[] = [];
  const runOne = async (index: number, signal: AbortSignal): Promise<void> => {
    // Zero-latency models (sim, scripted) never wait on I/O: without this, a batch runs in one stretch of promise
    // callbacks, and Ctrl-C, SIGTERM and timers are handled only after the last session.
    await yieldToEventLoop();
    if (signal.aborted) return;
    const profile = options.profiles[index % options.profiles.length]!;
    const id = `${profile.id}#${Math.floor(index / options.profiles.length) + 1}`;
    if (scope?.stop()) return;
    const outcome = await runSession(pdl, options, models, {
      id,
      profile,
      maxTurns,
      seed,
      oow,
      taxonomy,
      assignment,
      signal,
    });
    if ('unfinished' in outcome) {
      unfinished.push(outcome.unfinished);
      return;
    }
    if ('fatal' in outcome) {
      // A user error stops the batch (the bounded map aborts the other sessions); an abort is the batch's own.
      if (!signal.aborted && !isAbortError(outcome.fatal)) throw outcome.fatal;
      return;
    }
    reports.push({ index, report: outcome.report });
    options.onProgress?.({ done: reports.length, total, session: outcome.report });
  };
  // Indices made as slots free up: a batch of 100,000 sessions holds a few pending tasks, not 100,000 closures.
  // A spent budget ends the supply: no session starts after it.
  function* indices(): Generator<number> {
    for (let index = 0; index < total && !scope?.stop(); index++) yield index;
  }
  try {
    await boundedMap(indices(), { concurrency, ...(options.signal ? { signal: options.signal } : {}) }, runOne);
  } catch (error) {
    // Cancelled: the report covers the sessions that finished.
    if (!(options.signal?.aborted && isAbortError(error))) throw error;
  } finally {
    scope?.close();
  }
  const perSession = reports.sort((a, b) => a.index - b.index).map((entry) => entry.report);
  const budget = batchBudgetReport(scope, options.budget, { finished: perSession.length, of: total, unfinished });
  return {
    ...summarizeSessions(perSession),
    simulated: [options.model, options.userModel, options.judge, ...(options.apiModel ? [options.apiModel] : [])].some(
      (model) => model.kind !== 'real',
    ),
    byOow: summarizeByOow(
      perSession,
      taxonomy.categories.map((category) => category.id),
    ),
    oowSetup: {
      probability: oow,
      assignment,
      taxonomy: taxonomy.source,
      categories: taxonomy.categories.map((category) => ({
        id: category.id,
        name: category.name,
        subtypes: category.subtypes.length,
      })),
    },
    perSession,
    ...(options.signal?.aborted ? { cancelled: { finished: perSession.length, of: total } } : {}),
    ...(budget ? { budget } : {}),
  };
}

/** The models a session shares with the batch: the user model and the judge charged to its budget, if any. */
interface SessionModels {
  readonly userModel: ChatModel;
  readonly judge: ChatModel;
  readonly scope: BudgetScope | undefined;
}

interface SessionPlan {
  readonly id: string;
  readonly profile: UserProfile;
  readonly maxTurns: number;
  readonly seed: number;
  readonly oow: number;
  readonly taxonomy: OowTaxonomy;
  readonly assignment: OowAssignment;
  readonly signal: AbortSignal;
}

type SessionOutcome =
  | { readonly report: SessionReport }
  | { readonly fatal: unknown }
  /** The budget stopped it: the session's id (its store id when kept). */
  | { readonly unfinished: string };

async function runSession(
  pdl: Pdl,
  options: SimulateOptions,
  models: SessionModels,
  plan: SessionPlan,
): Promise<SessionOutcome> {
  const { id, profile, signal } = plan;
  const random = randomFrom(plan.seed, 'oow', id);
  const costOf = options.costOf ?? (() => 0);
  const oowTags: string[] = [];
  const history: SimulatedExchange[] = [];
  let conversation: Conversation | undefined;
  let ended: SessionReport['ended'];
  let userCalls = 0;
  let userCost = 0;
  let judgeCalls = 0;
  let judgeCost = 0;
  let failure: unknown;
  let judgement: Awaited<ReturnType<typeof judgeSession>> | undefined;
  try {
    conversation = await createConversation(pdl, {
      model: options.model,
      tools: options.tools,
      ...(options.simulateApis ? { simulateApis: true } : {}),
      ...(options.apiModel ? { apiModel: options.apiModel } : {}),
      ...(options.controllers ? { controllers: options.controllers } : {}),
      ...(options.controllerMode ? { controllerMode: options.controllerMode } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(models.scope ? { budgetScope: models.scope } : {}),
      seedKey: id,
      signal,
    });
    for (let turn = 1; turn <= plan.maxTurns && ended === undefined; turn++) {
      const tag = drawOowTurn(random, {
        probability: plan.oow,
        taxonomy: plan.taxonomy,
        assignment: plan.assignment,
        profileIndex: profile.index,
        turn,
      });
      const user = await simulateUserTurn(models.userModel, {
        profile,
        history,
        ...(tag ? { oow: tag, taxonomy: plan.taxonomy } : {}),
        key: id,
        signal,
      });
      userCalls += 1;
      userCost += costOf(user.result, options.userModel);
      if (user.ended) {
        ended = 'user';
        break;
      }
      const result = await conversation.send(user.text, { ...(tag ? { oow: tag } : {}), signal });
      throwIfBotFailed(result.events);
      const refused = result.events.some((event) => event.type === 'user-message-refused');
      // A refused message never reached the bot: its out-of-workflow move did not happen, and the user model is
      // shown only the start of it (a model that writes megabytes a turn would otherwise resend them every turn).
      if (tag && !refused) oowTags.push(oowLabel(tag));
      history.push(
        { role: 'user', text: refused ? cutRefused(user.text) : user.text },
        { role: 'bot', text: result.reply },
      );
      if (result.ended) ended = endReason(conversation.events);
    }
    ended ??= 'turn-limit';
    await conversation.end(ended);
    judgement = await judgeSession(models.judge, {
      goals: profile.goals,
      events: conversation.events,
      key: id,
      signal,
    });
    judgeCalls = judgement.calls;
    judgeCost = costOf(judgement.result, options.judge);
  } catch (error) {
    failure = error;
    // A spent budget stops the session where it is: kept open and marked so (the bot's or an API's call recorded
    // it already; a user's or the judge's is marked here), not judged.
    if (!signal.aborted && models.scope?.stop()) {
      await conversation?.markBudgetStop().catch(() => undefined);
      return { unfinished: conversation && options.store ? conversation.sessionId : id };
    }
    // A kept session that failed is closed as the user leaving, so it is not listed as open forever.
    if (!signal.aborted && !isAbortError(error)) await conversation?.end('user').catch(() => undefined);
  } finally {
    await conversation?.close().catch(() => undefined);
  }
  if (failure !== undefined && (signal.aborted || isAbortError(failure) || isUserError(failure)))
    return { fatal: failure };

  const events: readonly SessionEvent[] = conversation?.events ?? [];
  const counts = countSessionEvents(pdl, events);
  const required = profile.requiredApis;
  const report: SessionReport = {
    id,
    profile: profile.id,
    oow: oowTags,
    success: judgement?.success ?? false,
    progress: judgement?.progress ?? 0,
    achieved: judgement?.achieved ?? [],
    toolF1: judgement && required ? setScores(counts.calledApis, required).f1 : null,
    toolF1Multiset: judgement && required ? multisetScores(counts.calledApis, required).f1 : null,
    calledApis: counts.calledApis,
    proposedApis: counts.proposedApis,
    paper: paperSessionTool(counts.proposedApis, required),
    violationsProposed: counts.violationsProposed,
    violationsExecuted: counts.violationsExecuted,
    rejections: counts.rejections,
    turns: counts.turns,
    calls: counts.modelCalls + userCalls + judgeCalls,
    costUsd: counts.costUsd + userCost + judgeCost,
    ...(ended !== undefined ? { ended } : {}),
    ...(judgement?.reason !== undefined ? { judgeReason: judgement.reason } : {}),
    ...(conversation && options.store ? { sessionId: conversation.sessionId } : {}),
    ...(failure !== undefined ? { error: failure instanceof Error ? failure.message : String(failure) } : {}),
  };
  return { report };
}

/** Codes of errors that are the user's to fix (errors.ts): every session would fail the same way. */
const USER_ERROR_CODES: ReadonlySet<string> = new Set([
  'BAD_INPUT',
  'MODEL_SPEC',
  'MODEL_CONFIG',
  'MISSING_DEPENDENCY',
]);

/**
 * The engine answers a failed bot call with an apology and goes on, which suits a live chat; a simulated session
 * whose bot failed measures the provider, not the procedure, so it stops there and is recorded as failed. A
 * configuration error (the engine writes `CODE: message`) stops the batch, as the user model's would.
 */
function throwIfBotFailed(events: readonly SessionEvent[]): void {
  for (const event of events) {
    if (event.type !== 'model-call' || event.error === undefined) continue;
    const code = /^([A-Z_]+): /.exec(event.error)?.[1];
    if (code !== undefined && USER_ERROR_CODES.has(code))
      throw new WeftError(code as 'BAD_INPUT', event.error.slice(code.length + 2));
    throw new WeftError('PROVIDER', `the bot's model failed: ${event.error}`);
  }
}

/** What the user model sees of its own refused message: enough to tell what it wrote. */
export const MAX_REFUSED_ECHO = 2_000;

function cutRefused(text: string): string {
  return text.length > MAX_REFUSED_ECHO ? `${text.slice(0, MAX_REFUSED_ECHO)}… (cut: the message was refused)` : text;
}

/** Why the engine ended a session (the bot closed it, or the session-length limit). */
function endReason(events: readonly SessionEvent[]): NonNullable<SessionReport['ended']> {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.type === 'session-end') return event.reason;
  }
  return 'bot';
}
