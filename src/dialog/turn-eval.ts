/**
 * Turn-level evaluation with teacher forcing (`weft dialog eval`): for each bot move of each reference session, the
 * bot (proposeAction) gets the reference prefix — user messages, earlier bot replies, and earlier API calls with
 * their recorded results as tool messages — and proposes its next move; a judge (judge-turn.ts) says whether it is
 * consistent with the reference move and scores it 1–10. Numbers, by Weft's and the FlowAgent paper's protocols, in
 * turn-metrics.ts.
 *
 * Decisions:
 * - Nothing is executed: recorded results stand in for the APIs. An API the tools do not provide is offered to the
 *   bot as a declaration made from the PDL (its request parameters), so a procedure evaluates without its server.
 * - Every move is independent of the others (the prefix is the reference's, not the bot's), so all of them run
 *   with bounded concurrency. A move whose prediction or judgement fails is recorded with `error`; a user error
 *   (a model that is not configured) stops the evaluation.
 * - The pre-decision controllers guide each prediction from the state of the reference prefix, as they would in a
 *   live turn (the move is the first attempt of its step: no refusal feedback). Post-decision controllers do not
 *   run: a refusal would need a retry, and the reference move is one decision.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isAbortError, isUserError, WeftError } from '../errors.js';
import type { ChatMessage, ChatModel, ChatResult } from '../llm/chat-model.js';
import type { DialogMoveSpec } from './dialog-prompt-tags.js';
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
import { redactToolArgs } from '../tools/redact-tool-args.js';
import type { JsonValue, Tool, ToolSet } from '../tools/tool.js';
import { procedureControllers } from './procedure-controllers.js';
import type { Controller, ControllerMode } from './controller.js';
import type { DialogState } from './dialog-state.js';
import { SessionFold } from './fold-session.js';
import { judgeTurn } from './judge-turn.js';
import { oowLabel } from './oow.js';
import { pdlApiDeclaration } from './pdl-api-declaration.js';
import { simulateReferenceResults } from './simulate-reference-results.js';
import type { Pdl } from './pdl.js';
import { proposeAction } from './propose-action.js';
import type { ReferenceSession } from './reference-sessions.js';
import {
  type PaperTurnSummary,
  summarizePaperTurns,
  summarizeTurns,
  type TurnReport,
  type TurnSummary,
} from './turn-metrics.js';

export const TURN_EVAL_DEFAULTS = Object.freeze({ concurrency: 4 });
/** A context line longer than this is cut in the judge's prompt. */
const MAX_CONTEXT_LINE = 2_000;

export interface EvaluateTurnsOptions {
  /** The bot. */
  readonly model: ChatModel;
  readonly judge: ChatModel;
  /** The APIs' tools (only their declarations are used); missing ones are declared from the PDL. */
  readonly tools?: ToolSet | readonly Tool[];
  /** Extra controllers; the built-in ones and the PDL's controller modules are added (procedure-controllers.ts). */
  readonly controllers?: readonly Controller[];
  /** `none` leaves out the pre-decision guidance (post-decision controllers never run here: nothing executes). */
  readonly controllerMode?: ControllerMode;
  /**
   * Reference API calls recorded without an answer get one from a simulated API first
   * (simulate-reference-results.ts); without this they are shown to the bot as having answered null.
   */
  readonly simulateApis?: boolean;
  /** The model that answers simulated APIs (default: the bot's). */
  readonly apiModel?: ChatModel;
  readonly concurrency?: number;
  /** The cost of a call (default: free). */
  readonly costOf?: (result: ChatResult, model: ChatModel) => number;
  /**
   * Calls, tokens, cost (USD) and wall time the whole evaluation may spend: the bot's, the judge's and the
   * simulated APIs' calls count. When one is spent no more moves start, the moves under way stop at their next call
   * (at the deadline, calls in flight are aborted), and the report covers the moves that finished
   * (`budget.stopped` names the budget and the moves cut short).
   */
  readonly budget?: Budget;
  /** How the caller names each budget (`--max-calls`); default `budget.maxCalls` and so on. */
  readonly budgetFields?: Partial<Record<ModelBudgetName, string>>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: {
    readonly done: number;
    readonly total: number;
    readonly turn: TurnReport;
  }) => void;
}

export interface TurnEvalReport extends TurnSummary {
  /** Weft's attribution: a move is out of workflow when it answers a user message tagged so (the whole turn). */
  readonly byOow: { readonly none: TurnSummary; readonly oow: TurnSummary };
  /**
   * The paper's figures over every turn (TurnSummary's `paper`), and its in-workflow / out-of-workflow split, where
   * only the move right after an out-of-workflow user message counts as out of workflow.
   */
  readonly paper: PaperTurnSummary & { readonly iw: PaperTurnGroup; readonly oow: PaperTurnGroup };
  readonly calls: number;
  readonly costUsd: number;
  /** True when the bot or the judge is a `sim:` or `scripted:` model. */
  readonly simulated: boolean;
  readonly perTurn: readonly TurnReport[];
  /** Reference API calls whose answer a simulated API gave (`simulateApis`). */
  readonly simulatedResults: number;
  readonly cancelled?: { readonly finished: number; readonly of: number };
  /** With a budget: the limits, what the evaluation used, and whether it stopped it. */
  readonly budget?: BatchBudgetReport;
}

/** One bot move to predict: the prefix before it and the reference move. */
interface TurnCase {
  readonly session: string;
  readonly index: number;
  readonly turn: number;
  readonly oow?: string;
  readonly prefix: readonly ChatMessage[];
  /** What the controllers read before this move. */
  readonly state: DialogState;
  readonly reference: DialogMoveSpec;
  /** The message before this move is the out-of-workflow user message. */
  readonly rightAfterOow: boolean;
}

/** A part of the turns by the paper's attribution. */
export interface PaperTurnGroup {
  readonly turns: number;
  readonly passRate: number;
  readonly meanScore: number;
}

export async function evaluateTurns(
  pdl: Pdl,
  given: readonly ReferenceSession[],
  options: EvaluateTurnsOptions,
): Promise<TurnEvalReport> {
  const concurrency = integerOption(options.concurrency ?? TURN_EVAL_DEFAULTS.concurrency, 'concurrency', { min: 1 });
  if (options.budget) checkBudget(options.budget, options.budgetFields);
  const tools = apiTools(pdl, options.tools);
  const controllers = await procedureControllers(pdl, options.controllerMode ?? 'all', options.controllers);
  const costOf = options.costOf ?? (() => 0);
  const scope = options.budget
    ? createBudgetScope({ budget: options.budget, ...(options.budgetFields ? { fields: options.budgetFields } : {}) })
    : undefined;
  try {
    return await evaluateUnderBudget(pdl, given, options, { tools, controllers, concurrency, costOf, scope });
  } finally {
    scope?.close();
  }
}

interface EvaluationSetup {
  readonly tools: Tool[];
  readonly controllers: readonly Controller[];
  readonly concurrency: number;
  readonly costOf: (result: ChatResult, model: ChatModel) => number;
  readonly scope: BudgetScope | undefined;
}

async function evaluateUnderBudget(
  pdl: Pdl,
  given: readonly ReferenceSession[],
  options: EvaluateTurnsOptions,
  setup: EvaluationSetup,
): Promise<TurnEvalReport> {
  const { tools, controllers, concurrency, costOf, scope } = setup;
  // Every model's calls are charged to the budget, priced as the report prices them.
  const charged = (model: ChatModel) => (scope ? scope.metered(model, (result) => costOf(result, model)) : model);
  const bot = charged(options.model);
  const judge = charged(options.judge);
  const unfinished: string[] = [];
  let calls = 0;
  let costUsd = 0;
  let references = given;
  let simulatedResults = 0;
  if (options.simulateApis) {
    const apiModel = options.apiModel ?? options.model;
    try {
      const filled = await simulateReferenceResults(
        pdl,
        given,
        tools,
        {
          model: charged(apiModel),
          onUsage: (usage) => {
            calls += usage.calls;
            costUsd += costOf({ text: '', usage: usage.usage, model: usage.model }, apiModel);
          },
        },
        options.signal,
      );
      references = filled.references;
      simulatedResults = filled.simulated;
    } catch (error) {
      // The budget was spent answering the reference calls: no move starts, and the report says why.
      if (!scope?.stop() || options.signal?.aborted) throw error;
    }
  }
  // Cases are made as they are run, not all up front: each holds a copy of its prefix, so a session of n moves
  // would hold n prefixes (n² messages; 30,000 moves took gigabytes).
  const total = references.reduce(
    (sum, reference) => sum + reference.messages.filter((message) => message.role === 'bot').length,
    0,
  );
  const results: { order: number; turn: TurnReport }[] = [];
  const runOne = async (item: TurnCase, signal: AbortSignal, order: number): Promise<void> => {
    // Zero-latency models never wait on I/O: without this, Ctrl-C and SIGTERM are handled only after the last turn.
    await yieldToEventLoop();
    if (signal.aborted || scope?.stop()) return;
    let prediction: DialogMoveSpec | undefined;
    let turn: TurnReport;
    try {
      const decision = await proposeAction(pdl, item.prefix, {
        model: bot,
        tools,
        guidance: controllers.flatMap((controller) => controller.pre?.({ pdl, state: item.state }) || []),
        key: `${item.session}/${item.index}`,
        turn: item.turn,
        signal,
      });
      calls += 1;
      costUsd += costOf({ text: '', usage: decision.usage, model: decision.model }, options.model);
      prediction =
        decision.action.kind === 'tool'
          ? { kind: 'tool', name: decision.action.name, args: decision.action.args }
          : { kind: 'reply', text: decision.action.text };
      const verdict = await judgeTurn(judge, {
        context: contextText(item.prefix),
        reference: item.reference,
        prediction,
        key: `${item.session}/${item.index}`,
        signal,
      });
      calls += verdict.calls;
      costUsd += costOf(verdict.result, options.judge);
      turn = {
        ...caseFields(item),
        prediction,
        consistent: verdict.consistent,
        score: verdict.score,
        ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}),
      };
    } catch (error) {
      if (signal.aborted) return;
      // A spent budget cuts the move short: left out, and named in the report.
      if (scope?.stop()) {
        unfinished.push(`${item.session}/${item.index}`);
        return;
      }
      if (isAbortError(error)) return;
      // A user error (a model that is not configured) stops the evaluation: the bounded map aborts the others.
      if (isUserError(error)) throw error;
      turn = {
        ...caseFields(item),
        ...(prediction ? { prediction } : {}),
        consistent: false,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    results.push({ order, turn });
    options.onProgress?.({ done: results.length, total, turn });
  };
  // A spent budget ends the supply: no move starts after it.
  function* cases(): Generator<TurnCase> {
    for (const reference of references) {
      for (const item of iterateTurnCases(reference)) {
        if (scope?.stop()) return;
        yield item;
      }
    }
  }
  try {
    await boundedMap(cases(), { concurrency, ...(options.signal ? { signal: options.signal } : {}) }, runOne);
  } catch (error) {
    // Cancelled: the report covers the turns that finished.
    if (!(options.signal?.aborted && isAbortError(error))) throw error;
  }
  const judged = results.sort((a, b) => a.order - b.order).map((entry) => entry.turn);
  const budget = batchBudgetReport(scope, options.budget, { finished: judged.length, of: total, unfinished });
  const summary = summarizeTurns(judged);
  const group = (turns: readonly TurnReport[]): PaperTurnGroup => {
    const paper = summarizePaperTurns(turns);
    return {
      turns: turns.filter((turn) => turn.error === undefined).length,
      passRate: paper.passRate,
      meanScore: paper.meanScore,
    };
  };
  return {
    ...summary,
    paper: {
      ...summary.paper,
      iw: group(judged.filter((turn) => !turn.rightAfterOow)),
      oow: group(judged.filter((turn) => turn.rightAfterOow)),
    },
    byOow: {
      none: summarizeTurns(judged.filter((turn) => turn.oow === undefined)),
      oow: summarizeTurns(judged.filter((turn) => turn.oow !== undefined)),
    },
    calls,
    costUsd,
    simulated:
      options.model.kind !== 'real' ||
      options.judge.kind !== 'real' ||
      (simulatedResults > 0 && (options.apiModel ?? options.model).kind !== 'real'),
    simulatedResults,
    // Scored with the real values; shown with the tools' secret arguments redacted, as session logs show them.
    perTurn: judged.map((turn) => redactTurn(turn, tools)),
    ...(options.signal?.aborted ? { cancelled: { finished: judged.length, of: total } } : {}),
    ...(budget ? { budget } : {}),
  };
}

function redactTurn(turn: TurnReport, tools: readonly Tool[]): TurnReport {
  const redact = (move: DialogMoveSpec): DialogMoveSpec =>
    move.kind === 'tool'
      ? {
          ...move,
          args: redactToolArgs(
            tools.find((tool) => tool.name === move.name),
            move.args,
          ),
        }
      : move;
  return {
    ...turn,
    reference: redact(turn.reference),
    ...(turn.prediction ? { prediction: redact(turn.prediction) } : {}),
  };
}

function caseFields(item: TurnCase): Omit<TurnReport, 'consistent'> {
  return {
    session: item.session,
    index: item.index,
    turn: item.turn,
    ...(item.oow !== undefined ? { oow: item.oow } : {}),
    ...(item.rightAfterOow ? { rightAfterOow: true } : {}),
    reference: item.reference,
  };
}

/**
 * The bot moves of a reference session, each with the prefix the bot sees before it and the state the controllers
 * read. Both come from folding the reference as session events (fold-session.ts), as the engine builds them, so
 * the bot sees a reference prefix exactly as it would see a live conversation.
 */
export function turnCases(reference: ReferenceSession): TurnCase[] {
  return [...iterateTurnCases(reference)];
}

/** `turnCases` one at a time: a case's prefix is copied when it is reached. */
export function* iterateTurnCases(reference: ReferenceSession): Generator<TurnCase> {
  const fold = new SessionFold();
  let turn = 0;
  let oow: string | undefined;
  for (const [index, message] of reference.messages.entries()) {
    if (message.role === 'user') {
      if (turn > 0) fold.apply({ type: 'turn-end', at: 0, turn, actions: 0, rejections: 0, exhausted: false });
      turn += 1;
      oow = message.oow ? oowLabel(message.oow) : undefined;
      fold.apply({
        type: 'user-message',
        at: 0,
        turn,
        text: message.content,
        ...(message.oow ? { oow: message.oow } : {}),
      });
      continue;
    }
    const move: DialogMoveSpec =
      message.kind === 'tool'
        ? { kind: 'tool', name: message.tool, args: message.args }
        : { kind: 'reply', text: message.content };
    const before = reference.messages[index - 1];
    yield {
      session: reference.id,
      index,
      turn,
      ...(oow !== undefined ? { oow } : {}),
      prefix: [...fold.history],
      state: fold.state,
      reference: move,
      rightAfterOow: before?.role === 'user' && before.oow !== undefined,
    };
    if (message.kind === 'tool') {
      const callId = `ref_${index}`;
      fold.apply({
        type: 'tool-call',
        at: 0,
        turn,
        callId,
        name: message.tool,
        args: message.args,
        preconditionsMet: true,
      });
      fold.apply(
        message.ok
          ? {
              type: 'tool-result',
              at: 0,
              turn,
              callId,
              name: message.tool,
              ok: true,
              result: message.result ?? null,
              ms: 0,
            }
          : {
              type: 'tool-result',
              at: 0,
              turn,
              callId,
              name: message.tool,
              ok: false,
              error: message.error ?? (message.result === undefined ? 'failed' : resultText(message.result)),
              ms: 0,
            },
      );
    } else {
      fold.apply({ type: 'bot-reply', at: 0, turn, text: message.content });
    }
  }
}

function resultText(result: JsonValue): string {
  return typeof result === 'string' ? result : JSON.stringify(result);
}

/** The prefix as the judge reads it. */
function contextText(prefix: readonly ChatMessage[]): string {
  const lines = prefix.flatMap((message): string[] => {
    if (message.role === 'user') return [`Customer: ${cut(message.content)}`];
    if (message.role === 'tool')
      return [`[API ${message.isError ? 'error' : 'result'}] ${message.name}: ${cut(message.content)}`];
    const calls = (message.toolCalls ?? []).map((call) => `[API call] ${call.name} ${cut(JSON.stringify(call.args))}`);
    return message.content ? [`Assistant: ${cut(message.content)}`, ...calls] : calls;
  });
  return lines.length > 0 ? lines.join('\n') : '(nothing yet: this is the first move)';
}

function cut(text: string): string {
  return text.length > MAX_CONTEXT_LINE ? `${text.slice(0, MAX_CONTEXT_LINE)}… (cut)` : text;
}

/**
 * The APIs as tools in PDL order: the given tool of that name, else a declaration made from the PDL, which
 * refuses to run (teacher forcing never executes a call).
 */
export function apiTools(
  pdl: Pick<Pdl, 'apis' | 'slots' | 'file'>,
  given: ToolSet | readonly Tool[] | undefined,
): Tool[] {
  const list: readonly Tool[] = given === undefined ? [] : 'tools' in given ? given.tools : given;
  const byName = new Map(list.map((tool) => [tool.name, tool]));
  return pdl.apis.map(
    (api): Tool =>
      byName.get(api.name) ?? {
        ...pdlApiDeclaration(pdl, api),
        source: 'PDL declaration (evaluation only)',
        call: async () => {
          throw new WeftError('TOOL', `${api.name} is only declared for turn-level evaluation; it is never called`);
        },
      },
  );
}
