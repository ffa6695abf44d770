/**
 * The conversation engine (types in conversation-types.ts): one user turn of paper Algorithm 1 per `send`, every step
 * recorded as a session event before it takes effect where that matters (a `tool-call` is durable before the API
 * runs, so a crash mid-call is known on resume and the call is not repeated).
 */
import { randomBytes } from 'node:crypto';
import { WeftError, isAbortError, isWeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { costOf } from '../llm/pricing.js';
import { anySignal } from '../llm/timeout.js';
import { checkBudget, createBudgetScope } from '../runtime/budget-scope.js';
import { startToolSpan } from '../llm/telemetry.js';
import { newRunId } from '../store/run-id.js';
import { scrubSecrets } from '../text/redact-url.js';
import { currentOwner, ownerState } from '../store/run-owner.js';
import type { RunOwner } from '../store/run-store.js';
import { callTool } from '../tools/call-tool.js';
import { REDACTED, redactToolArgs, secretArgValues } from '../tools/redact-tool-args.js';
import { type ApiSimulator, type SimulationUsage, simulatedTool } from '../tools/simulated-api.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import type { StreamEvent } from '../llm/chat-model.js';
import { sessionTurnLimit } from './built-in-controllers.js';
import {
  type Controller,
  type ControllerContext,
  type ProposedAction,
  type Verdict,
  actionLabel,
} from './controller.js';
import { DEFAULT_MAX_ACTIONS_PER_TURN, MAX_BOT_TEXT_CHARS, MAX_TOOL_RESULT_DEPTH } from './conversation-limits.js';
import type { Conversation, ConversationOptions, SendOptions, TurnResult } from './conversation-types.js';
import type { BudgetScope } from '../runtime/budget-scope.js';
import { procedureControllers } from './procedure-controllers.js';
import { INTERRUPTED_CALL, SessionFold } from './fold-session.js';
import type { Pdl } from './pdl.js';
import { proposeAction } from './propose-action.js';
import { createReplyStream, type ReplyStream } from './reply-stream.js';
import { judgeTranscript } from './judge-session.js';
import { simulationDeclaration } from './pdl-api-declaration.js';
import { procedureText } from './procedure-text.js';
import { readSessionEvents } from './read-session-events.js';
import type { SessionEvent, SimulationRecord } from './session-events.js';
import { nestsDeeperThan, toolArgsProblem } from './tool-args-check.js';
import { latestResults, unmetPreconditions } from './unmet-preconditions.js';
import { refuseUserMessage, wellFormedMessage } from './user-message-check.js';
import { transcriptOf } from './transcript.js';

type Distribute<E> = E extends SessionEvent ? Omit<E, 'at'> : never;
type NewEvent = Distribute<SessionEvent>;

/** What the bot says when a turn ends without a reply of its own. */
const EXHAUSTED_REPLY =
  "I'm sorry, I could not finish that step just now. Could you tell me again what you need, or give me the details I asked for?";
const MODEL_ERROR_REPLY = "I'm sorry, something went wrong on my side. Please say that again.";

/** `s-` + a run id's time and randomness, with two more random bytes (simulations start thousands a second). */
export function newSessionId(date = new Date()): string {
  return `s-${newRunId(date)}${randomBytes(2).toString('hex')}`;
}

export async function createConversation(pdl: Pdl, options: ConversationOptions): Promise<Conversation> {
  if (options.budget && !options.budgetScope) checkBudget(options.budget, options.budgetFields);
  const ownScope =
    options.budget && !options.budgetScope
      ? createBudgetScope({ budget: options.budget, ...(options.budgetFields ? { fields: options.budgetFields } : {}) })
      : undefined;
  try {
    return await startConversation(pdl, options, ownScope);
  } catch (error) {
    ownScope?.close();
    throw error;
  }
}

async function startConversation(
  pdl: Pdl,
  options: ConversationOptions,
  ownScope: BudgetScope | undefined,
): Promise<Conversation> {
  // The bot's and the simulated APIs' calls are charged to the budget, the conversation's own or a shared one.
  const scope = options.budgetScope ?? ownScope;
  const botModel = scope ? scope.metered(options.model) : options.model;
  // A simulated API's model is shown the procedure and the conversation so far, read when it is called; the cost
  // of each call is kept for its tool-result event.
  let conversationText = (): string => '';
  const lastSimulation: { usage?: SimulationUsage | undefined } = {};
  const simulator: ApiSimulator = {
    model: scope ? scope.metered(options.apiModel ?? options.model) : (options.apiModel ?? options.model),
    context: () => ({ procedure: procedureText(pdl), conversation: conversationText() }),
    onUsage: (usage) => {
      lastSimulation.usage = usage;
    },
  };
  const tools = bindTools(pdl, options.tools, options.simulateApis === true, simulator);
  const simulatedApis = tools.filter((tool) => tool.simulated).map((tool) => tool.name);
  // What the repetition controller may let run twice: an API whose tool does not say so counts as not idempotent.
  const idempotentApis: ReadonlySet<string> = new Set(
    tools.filter((tool) => tool.idempotent === true).map((tool) => tool.name),
  );
  const mode = options.controllerMode ?? 'all';
  const controllers = await procedureControllers(pdl, mode, options.controllers);
  const usePost = mode === 'all';
  const maxActions = options.maxActionsPerTurn ?? DEFAULT_MAX_ACTIONS_PER_TURN;
  integerOption(maxActions, 'maxActionsPerTurn', { min: 1, max: 100 });
  const turnLimit = mode === 'none' ? undefined : sessionTurnLimit(pdl.controllers);
  const { store } = options;
  const owner: RunOwner = options.owner ?? currentOwner();
  const fold = new SessionFold();
  const events: SessionEvent[] = [];
  conversationText = () => judgeTranscript(events);
  let sessionId: string;
  let startedAt: number;
  let pdlChanged = false;

  if (options.sessionId !== undefined) {
    if (!store)
      throw new WeftError('BAD_INPUT', 'resuming a session needs a store', { location: { field: 'sessionId' } });
    sessionId = options.sessionId;
    const record = await store.getSession(sessionId);
    if (!record) throw new WeftError('NOT_FOUND', `no session ${sessionId} (see weft sessions)`);
    const previous = record.owner;
    if (previous && !sameOwner(previous, owner) && ownerState(previous) === 'alive') {
      throw new WeftError(
        'BAD_INPUT',
        `session ${sessionId} is in use by process ${previous.pid}; end that chat first`,
      );
    }
    if (!(await store.takeOverSession(sessionId, owner, previous))) {
      throw new WeftError('BAD_INPUT', `session ${sessionId} was just taken up by another process`);
    }
    startedAt = Date.parse(record.createdAt);
    for (const event of await readSessionEvents(store, sessionId)) {
      events.push(event);
      fold.apply(event);
    }
    const start = events.find((event) => event.type === 'session-start');
    pdlChanged = start?.type === 'session-start' && start.pdlSha256 !== pdl.sha256;
    // The budget counts on from what the session's log records (the bot's calls and the simulated APIs').
    const used = transcriptOf(events).totals;
    scope?.charge({
      calls: used.modelCalls,
      inputTokens: used.inputTokens,
      outputTokens: used.outputTokens,
      costUsd: used.costUsd,
    });
  } else {
    sessionId = newSessionId();
    startedAt = Date.now();
    if (store) {
      await store.createSession({
        sessionId,
        procedure: pdl.name,
        pdlPath: pdl.file ?? '',
        model: options.model.id,
        options: { ...options.sessionOptions, controllerMode: mode, maxActionsPerTurn: maxActions },
        owner,
      });
    }
  }

  const record = async (batch: readonly NewEvent[]): Promise<SessionEvent[]> => {
    const at = Math.max(0, Date.now() - startedAt);
    const stamped = batch.map((event) => ({ ...event, at }) as SessionEvent);
    if (store) await store.appendSessionEvents(sessionId, stamped);
    for (const event of stamped) {
      events.push(event);
      fold.apply(event);
      options.onEvent?.(event);
    }
    return stamped;
  };

  if (options.sessionId === undefined) {
    await record([
      {
        type: 'session-start',
        procedure: pdl.name,
        pdlPath: pdl.file ?? '',
        pdlSha256: pdl.sha256,
        model: options.model.id,
        modelKind: options.model.kind,
        ...(simulatedApis.length > 0 ? { simulatedApis, apiModel: simulator.model.id } : {}),
        controllers: controllers.map((controller) => ({
          name: controller.name,
          pre: controller.pre !== undefined,
          post: usePost && controller.post !== undefined,
        })),
        maxActionsPerTurn: maxActions,
      },
    ]);
  } else {
    await record([{ type: 'session-resume', pdlSha256: pdl.sha256, model: options.model.id }]);
  }

  // A call that started but has no result (a crash, or a send aborted mid-call in this process): its effect is
  // unknown, and repeating it could do it twice. It is given a result saying so, which the history needs too.
  const settleUnfinished = async (): Promise<SessionEvent[]> => {
    const unfinished = [...fold.unfinishedCalls];
    if (unfinished.length === 0) return [];
    return record(
      unfinished.map((call) => ({
        type: 'tool-result' as const,
        turn: call.turn,
        callId: call.callId,
        name: call.name,
        ok: false,
        error: INTERRUPTED_CALL,
        unknownOutcome: true as const,
        ms: 0,
      })),
    );
  };
  if (options.sessionId !== undefined) await settleUnfinished();

  let busy = false;
  let stopRecorded = false;

  const markBudgetStop = async (): Promise<void> => {
    const stop = scope?.stop();
    if (!stop || stopRecorded) return;
    stopRecorded = true;
    await record([
      {
        type: 'budget-stop',
        turn: fold.turn,
        budget: stop.budget,
        field: stop.field,
        exceeded: stop.exceeded,
        calls: stop.usage.calls,
        inputTokens: stop.usage.tokens.input,
        outputTokens: stop.usage.tokens.output,
        costUsd: stop.usage.costUsd,
        elapsedMs: stop.usage.elapsedMs,
      },
    ]);
    if (store) await store.setSessionProgress(sessionId, { status: 'open', turns: fold.turn });
  };

  /**
   * Runs a turn under the budget: the deadline aborts its calls and API calls in flight, and a spent budget is
   * recorded and thrown as its located BUDGET error (a cancel by the caller stays a cancel).
   */
  const budgeted = async (
    turnEvents: SessionEvent[],
    callerSignal: AbortSignal | undefined,
    onStream: SendOptions['onStream'],
  ): Promise<TurnResult> => {
    try {
      return await runTurn(turnEvents, anySignal(callerSignal, scope?.signal), onStream);
    } catch (error) {
      const spent = callerSignal?.aborted ? undefined : scope?.error();
      if (!spent) throw error;
      await markBudgetStop();
      throw spent;
    }
  };

  const runTurn = async (
    turnEvents: SessionEvent[],
    signal: AbortSignal | undefined,
    onStream: SendOptions['onStream'],
  ): Promise<TurnResult> => {
    const turn = fold.turn;
    // What the user sees of the reply as it arrives; undefined when nobody listens.
    const stream: ReplyStream | undefined = onStream ? createReplyStream(onStream) : undefined;
    const collect = async (batch: readonly NewEvent[]): Promise<void> => {
      turnEvents.push(...(await record(batch)));
    };
    // Attempts already made in this turn (a resumed pending turn goes on from there).
    let attempt = events.filter((event) => event.type === 'decision' && event.turn === turn).length;
    let actions = events.filter((event) => event.type === 'tool-result' && event.turn === turn).length;
    // Every decision of an unfinished turn was either refused or a call that ran (a reply would have ended it); two
    // controllers refusing one proposal are one rejection, as in the loop below.
    let rejections = attempt - actions;
    const feedback: string[] = [];
    let reply: string | undefined;
    let failed = false;
    let cut: { chars: number; reason: string } | undefined;
    while (attempt < maxActions) {
      attempt++;
      // One snapshot of the state per decision: what is recorded until the verdicts (guidance, the model call, the
      // decision) does not change it.
      const context: ControllerContext = { pdl, state: fold.state, idempotentApis };
      const guidance: NewEvent[] = [];
      for (const controller of controllers) {
        const text = runPre(controller, context);
        if (text) guidance.push({ type: 'guidance', turn, attempt, controller: controller.name, text });
      }
      if (guidance.length > 0) await collect(guidance);
      const started = performance.now();
      let decision: Awaited<ReturnType<typeof proposeAction>>;
      try {
        decision = await proposeAction(pdl, [...fold.history], {
          model: botModel,
          tools,
          guidance: [...guidance.map((event) => (event.type === 'guidance' ? event.text : '')), ...feedback],
          key: options.seedKey ?? sessionId,
          turn,
          attempt,
          ...(signal ? { signal } : {}),
          ...(stream ? { onStream: (event: StreamEvent) => stream.hear(event) } : {}),
        });
      } catch (error) {
        const reason = isWeftError(error)
          ? `${error.code}: ${error.message}`
          : String((error as Error)?.message ?? error);
        const failedCall = {
          type: 'model-call' as const,
          turn,
          attempt,
          model: options.model.id,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          ms: Math.round(performance.now() - started),
          error: reason,
        };
        // The reply was being shown when the call failed (Ctrl-C, a dropped connection, a timeout, the budget's
        // deadline): what the user saw is kept as the turn's reply, marked cut, instead of being lost.
        const partial = stream?.shown ?? '';
        if (partial !== '') {
          await collect([failedCall]);
          reply = partial;
          cut = { chars: partial.length, reason };
          break;
        }
        if (isAbortError(error) || (isWeftError(error) && error.code === 'ABORTED')) throw error;
        // A spent budget stops the turn (send records it); it is not the model failing.
        if (scope?.stop()) throw error;
        await collect([failedCall]);
        failed = true;
        break;
      }
      // The model's output is untrusted: arguments too large or deep to run or store are refused unseen by the
      // controllers (which serialise them), and runaway text is cut.
      const action = clipAction(decision.action);
      const argsProblem = action.kind === 'tool' ? toolArgsProblem(action.args) : undefined;
      const thought = decision.thought === undefined ? undefined : clipText(decision.thought);
      await collect([
        {
          type: 'model-call',
          turn,
          attempt,
          model: decision.model,
          inputTokens: decision.usage.inputTokens,
          outputTokens: decision.usage.outputTokens,
          costUsd: costOf([options.model.id, decision.model], decision.usage),
          ms: Math.round(performance.now() - started),
        },
        {
          type: 'decision',
          turn,
          attempt,
          ...(thought ? { thought } : {}),
          action:
            argsProblem && action.kind === 'tool'
              ? { ...action, args: `[not recorded: ${argsProblem}]` }
              : logged(action, tools),
        },
      ]);
      const verdicts: NewEvent[] = [];
      const reasons: string[] = [];
      if (action.kind === 'reply' && action.text.trim() === '')
        reasons.push('the reply was empty: write what the user should read');
      if (argsProblem) reasons.push(`${argsProblem}; the API was not called`);
      else if (usePost) {
        // Controllers see the call as the state records it (secret arguments redacted): compared with the raw
        // arguments, a recorded call with a secret would never match, and repetition would never be caught.
        const seen: ProposedAction =
          action.kind === 'tool' ? { ...action, args: shownArgs(toolNamed(action.name), action.args) } : action;
        for (const controller of controllers) {
          if (!controller.post) continue;
          const verdict = runPost(controller, seen, context);
          verdicts.push({
            type: 'verdict',
            turn,
            attempt,
            controller: controller.name,
            action: actionLabel(action),
            accepted: verdict.accepted,
            ...(verdict.accepted ? {} : { reason: verdict.reason }),
          });
          if (!verdict.accepted) reasons.push(`${controller.name}: ${verdict.reason}`);
        }
      }
      if (verdicts.length > 0) await collect(verdicts);
      if (reasons.length > 0) {
        stream?.withdraw();
        rejections++;
        feedback.push(
          `Your last proposal (${argsProblem && action.kind === 'tool' ? `a call of ${action.name}` : describe(action)}) was refused — ${reasons.join('; ')}. Choose another action.`,
        );
        continue;
      }
      if (action.kind === 'reply') {
        reply = action.text;
        break;
      }
      // Text the model wrote beside a tool call is its reasoning, not the reply.
      stream?.withdraw();
      await executeCall(action, turn, collect, signal);
      actions++;
      // The simulated API's model spent the budget, or the deadline cut the call short: the turn stops here.
      const spent = scope?.error();
      if (spent) throw spent;
    }
    const exhausted = reply === undefined && !failed;
    const text = reply ?? (failed ? MODEL_ERROR_REPLY : EXHAUSTED_REPLY);
    stream?.settle(text);
    await collect([
      { type: 'bot-reply', turn, text, ...(cut ? { cut } : {}) },
      { type: 'turn-end', turn, actions, rejections, exhausted },
    ]);
    if (turnLimit !== undefined && turn > turnLimit) await collect([{ type: 'session-end', reason: 'turn-limit' }]);
    return { reply: text, events: turnEvents, ended: fold.ended, ...(cut ? { cut } : {}) };
  };

  const toolNamed = (name: string): Tool | undefined => tools.find((candidate) => candidate.name === name);

  const executeCall = async (
    action: Extract<ProposedAction, { kind: 'tool' }>,
    turn: number,
    collect: (batch: readonly NewEvent[]) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<void> => {
    const tool = tools.find((candidate) => candidate.name === action.name);
    const preconditionsMet = unmetPreconditions(pdl, action.name, latestResults(fold.calls)).length === 0;
    await collect([
      {
        type: 'tool-call',
        turn,
        callId: action.callId,
        name: action.name,
        args: shownArgs(tool, action.args),
        preconditionsMet,
        ...(tool?.simulated ? { simulated: true } : {}),
      },
    ]);
    if (!tool) {
      const known = tools.map((candidate) => candidate.name).join(', ');
      await collect([
        {
          type: 'tool-result',
          turn,
          callId: action.callId,
          name: action.name,
          ok: false,
          error: `no API named ${action.name}; the APIs are: ${known}`,
          ms: 0,
        },
      ]);
      return;
    }
    // An `execute_tool` span (a child of the turn's, with tracing on), its arguments as the session records them.
    const span = startToolSpan({ name: action.name, callId: action.callId, args: shownArgs(tool, action.args) });
    lastSimulation.usage = undefined;
    const outcome = await span.run(() =>
      callTool(tool, action.args, { scope: `session:${sessionId}`, ...(signal ? { signal } : {}) }),
    );
    span.end(outcome.ok ? outcome : { ok: false, error: outcome.error.message, code: outcome.error.code });
    const simulation = lastSimulation.usage as SimulationUsage | undefined;
    const simulated: { simulation?: SimulationRecord } = simulation
      ? {
          simulation: {
            model: simulation.model,
            calls: simulation.calls,
            inputTokens: simulation.usage.inputTokens,
            outputTokens: simulation.usage.outputTokens,
            costUsd: costOf([simulator.model.id, simulation.model], simulation.usage),
          },
        }
      : {};
    await collect([
      outcome.ok
        ? {
            type: 'tool-result',
            turn,
            callId: action.callId,
            name: action.name,
            ok: true,
            result: nestsDeeperThan(outcome.result, MAX_TOOL_RESULT_DEPTH)
              ? JSON.stringify(outcome.result)
              : outcome.result,
            ms: Math.round(outcome.durationMs),
            ...simulated,
          }
        : {
            type: 'tool-result',
            turn,
            callId: action.callId,
            name: action.name,
            ok: false,
            // An API's error may quote what it was sent (`card 4111… declined`): the secrets are not kept.
            error: scrubSecrets(outcome.error.message, secretArgValues(tool, action.args), REDACTED),
            // A call that timed out may still have reached the API and taken effect.
            ...(outcome.error.code === 'TIMEOUT' ? { unknownOutcome: true as const } : {}),
            ms: Math.round(outcome.durationMs),
            ...simulated,
          },
    ]);
  };

  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    if (busy)
      throw new WeftError('BAD_INPUT', `session ${sessionId} is already answering a message; wait for its reply`);
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };

  const conversation: Conversation = {
    sessionId,
    pdl,
    get state() {
      return fold.state;
    },
    get events() {
      return [...events];
    },
    get pendingTurn() {
      return fold.pendingTurn;
    },
    pdlChanged,
    budget: scope,
    markBudgetStop,
    send(userMessage, sendOptions: SendOptions = {}) {
      return guard(async () => {
        if (fold.ended) throw new WeftError('BAD_INPUT', `session ${sessionId} has ended; start a new one`);
        // A spent budget takes no new message: the caller was told, and keeps it.
        const spent = scope?.error();
        if (spent) {
          await markBudgetStop();
          throw spent;
        }
        if (fold.pendingTurn) {
          throw new WeftError(
            'BAD_INPUT',
            `session ${sessionId} has a turn without a reply; finish it first (continueTurn)`,
          );
        }
        const refused = refuseUserMessage(userMessage);
        if (refused) {
          const reply = `Sorry, I cannot take that message: ${refused}. Nothing was changed; please send your message again as plain text.`;
          const turnEvents = await record([{ type: 'user-message-refused', turn: fold.turn, reason: refused }]);
          return { reply, events: turnEvents, ended: false };
        }
        const turnEvents = await record([
          {
            type: 'user-message',
            turn: fold.turn + 1,
            text: wellFormedMessage(userMessage),
            ...(sendOptions.oow ? { oow: sendOptions.oow } : {}),
          },
        ]);
        const result = await budgeted(turnEvents, sendOptions.signal ?? options.signal, sendOptions.onStream);
        if (store)
          await store.setSessionProgress(sessionId, { status: fold.ended ? 'ended' : 'open', turns: fold.turn });
        return result;
      });
    },
    continueTurn(sendOptions = {}) {
      return guard(async () => {
        if (!fold.pendingTurn) throw new WeftError('BAD_INPUT', `session ${sessionId} has no turn waiting for a reply`);
        const result = await budgeted(
          await settleUnfinished(),
          sendOptions.signal ?? options.signal,
          sendOptions.onStream,
        );
        if (store)
          await store.setSessionProgress(sessionId, { status: fold.ended ? 'ended' : 'open', turns: fold.turn });
        return result;
      });
    },
    async end(reason = 'user') {
      if (fold.ended) return;
      await record([{ type: 'session-end', reason }]);
      if (store) await store.setSessionProgress(sessionId, { status: 'ended', turns: fold.turn });
    },
    async close() {
      ownScope?.close();
      if (store) await store.releaseSession(sessionId, owner);
    },
  };
  return conversation;
}

/**
 * The PDL's APIs as tools, in PDL order. Every API needs a tool of its name; with `simulateApis`, one without (or
 * with a declaration only) is answered by the simulator's model from the best declaration there is — the tools
 * spec's, else the PDL's own. A `kind: simulated` tool is always answered so.
 */
function bindTools(
  pdl: Pdl,
  given: ConversationOptions['tools'],
  simulateApis: boolean,
  simulator: ApiSimulator,
): Tool[] {
  const list =
    'tools' in given && !Array.isArray(given)
      ? (given as { tools: readonly Tool[] }).tools
      : (given as readonly Tool[]);
  const byName = new Map(list.map((tool) => [tool.name, tool]));
  const unbound = pdl.apis.filter((api) => {
    const tool = byName.get(api.name);
    return !simulateApis && (tool === undefined || tool.declaredOnly === true);
  });
  if (unbound.length > 0) {
    const declared = unbound.filter((api) => byName.get(api.name)?.declaredOnly);
    throw new WeftError(
      'BAD_INPUT',
      `${unbound.length === 1 ? 'an API has' : `${unbound.length} APIs have`} no tool: ${unbound.map((api) => api.name).join(', ')} (give a tools file with --tools, or a tools: section in the PDL file; or --simulate-apis to have a model answer ${unbound.length === 1 ? 'it' : 'them'})`,
      {
        issues: unbound.map((api) => ({
          ...(pdl.file ? { file: pdl.file } : {}),
          field: `APIs[${pdl.apis.indexOf(api)}].name`,
          message: declared.includes(api)
            ? `${api.name} is only declared (${byName.get(api.name)?.source}): it has no endpoint`
            : `no tool named ${api.name}`,
        })),
        ...(pdl.file ? { location: { file: pdl.file } } : {}),
      },
    );
  }
  return pdl.apis.map((api) => {
    const tool = byName.get(api.name);
    if (tool && !tool.declaredOnly && !tool.simulated) return tool;
    return simulatedTool(simulationDeclaration(pdl, api, tool), simulator);
  });
}

function logged(action: ProposedAction, tools: readonly Tool[]): Extract<SessionEvent, { type: 'decision' }>['action'] {
  if (action.kind === 'reply') return action;
  const tool = tools.find((candidate) => candidate.name === action.name);
  return { ...action, args: shownArgs(tool, action.args) };
}

/**
 * Arguments as events record them: secret arguments redacted. Arguments that are not an object (text that did not
 * parse as JSON, kept so the model can be shown its mistake) may hold a secret where no name says so: a tool with
 * secret arguments gets none of that text recorded.
 */
function shownArgs(tool: Tool | undefined, args: JsonValue): JsonValue {
  if (tool?.secretArgs?.length && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    return `${REDACTED} (not a JSON object)`;
  }
  return redactToolArgs(tool, args) as JsonValue;
}

function clipText(text: string): string {
  if (text.length <= MAX_BOT_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_BOT_TEXT_CHARS)}… [cut: ${(text.length - MAX_BOT_TEXT_CHARS).toLocaleString('en-US')} more characters]`;
}

function clipAction(action: ProposedAction): ProposedAction {
  return action.kind === 'reply' ? { ...action, text: clipText(action.text) } : action;
}

function describe(action: ProposedAction): string {
  if (action.kind === 'reply') return `a reply: "${action.text.slice(0, 120)}"`;
  return `a call of ${action.name} with ${JSON.stringify(action.args).slice(0, 200)}`;
}

function sameOwner(a: RunOwner, b: RunOwner): boolean {
  return a.pid === b.pid && a.host === b.host;
}

/** A user's controller that throws gives no guidance; the turn goes on. */
function runPre(controller: Controller, context: ControllerContext): string | undefined {
  try {
    const text = controller.pre?.(context);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A controller that throws, or answers something that is not a verdict, refuses the action: a broken check must
 * not let a call through (fail closed), and the reason says so.
 */
function runPost(controller: Controller, action: ProposedAction, context: ControllerContext): Verdict {
  try {
    const verdict = controller.post?.(action, context) ?? { accepted: true };
    if (verdict && typeof verdict === 'object' && verdict.accepted === true) return { accepted: true };
    if (verdict && typeof verdict === 'object' && verdict.accepted === false) {
      return { accepted: false, reason: String(verdict.reason ?? 'refused').slice(0, 2000) };
    }
    return { accepted: false, reason: `controller ${controller.name} answered no verdict; the action was not taken` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      accepted: false,
      reason: `controller ${controller.name} failed (${message.slice(0, 500)}); the action was not taken`,
    };
  }
}
