/**
 * `weft chat`: talk to a procedure. Interactive on a terminal (readline), or one user message a line
 * from stdin for scripts and tests. Every turn is recorded in the store as it happens, so Ctrl-C, SIGTERM, a
 * closed stdin or a crash lose nothing: `weft chat --session ID` takes the session up again, finishing a turn that
 * was cut short without repeating a recorded API call.
 * Lines `/end` (or `[END]`) end the session; `/quit` leaves it open to resume later.
 */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  type Conversation,
  type ControllerMode,
  createConversation,
  cutNote,
  type CutReply,
  formatSessionEvent,
  formatTranscriptEntry,
  inertText,
  loadPdlFile,
  type SessionEvent,
  type StreamEvent,
  sessionStoreOf,
  transcriptOf,
  type TurnResult,
  toolArgsRedactor,
  traceAgent,
  tracedModel,
  WeftError,
  formatError,
  isWeftError,
} from '../../internal.js';
import { loadContext, loadModel, openStore } from '../context.js';
import { integerFlag } from '../flags.js';
import { BUDGET_FLAG_FIELDS, budgetFromFlags } from '../run-choices.js';
import { isolationLimits } from '../distill/isolation-limits.js';
import { loadRunTools } from '../load-run-tools.js';
import { sessionIdArgument } from './session-id-argument.js';
import type { Output } from '../output.js';
import type { BudgetFlags } from '../budget-options.js';

/** Budget flags (BudgetFlags), as `weft run` takes them: the bot's calls and the simulated APIs' count. */
export interface ChatFlags extends BudgetFlags {
  readonly session?: string;
  readonly model?: string;
  readonly tools?: string;
  /** Have a model answer every API without a tool (or with a declaration only). */
  readonly simulateApis?: boolean;
  /** The model that answers simulated APIs (default: the bot's). */
  readonly apiModel?: string;
  readonly verbose?: boolean;
  /** commander's `--no-post-controllers` / `--no-controllers`. */
  readonly postControllers?: boolean;
  readonly controllers?: boolean;
  readonly maxActions?: string;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
}

interface TurnSummary {
  readonly turn: number;
  readonly user: string;
  readonly reply: string;
  readonly toolCalls: number;
  readonly rejections: number;
  /** The reply was cut while streaming; `reply` is what had arrived. */
  readonly cut?: CutReply;
}

export async function chatCommand(
  file: string | undefined,
  flags: ChatFlags,
  output: Output,
  signal: AbortSignal,
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  if (file === undefined && flags.session === undefined) {
    throw new WeftError(
      'BAD_INPUT',
      'give a procedure file (weft chat FILE.pdl.yaml) or a session to resume (--session ID)',
      {
        location: { field: '<file>' },
      },
    );
  }
  if (flags.session !== undefined) sessionIdArgument(flags.session, '--session');
  const controllerMode: ControllerMode =
    flags.controllers === false ? 'none' : flags.postControllers === false ? 'pre-only' : 'all';
  const maxActionsPerTurn = integerFlag('max-actions', flags.maxActions, { min: 1 });
  // Checked here too so that the message names the flag, not the library option, before anything is opened.
  if (maxActionsPerTurn !== undefined && maxActionsPerTurn > 100) {
    throw new WeftError('BAD_INPUT', `--max-actions expects an integer from 1 to 100, got ${maxActionsPerTurn}`, {
      location: { field: '--max-actions' },
    });
  }
  const budget = budgetFromFlags(flags);
  const context = await loadContext(flags);
  const runStore = await openStore(context);
  const store = sessionStoreOf(runStore);
  let conversation: Conversation | undefined;
  let closeTools: (() => Promise<void>) | undefined;
  try {
    const record = flags.session !== undefined ? await store.getSession(flags.session) : undefined;
    if (flags.session !== undefined && !record) {
      throw new WeftError('NOT_FOUND', `no session ${flags.session} (see weft sessions)`, {
        location: { field: '--session' },
      });
    }
    const pdlPath = file ?? record?.pdlPath;
    if (!pdlPath) throw new WeftError('BAD_INPUT', `session ${flags.session} has no procedure file recorded; give it`);
    const pdl = await loadPdlFile(pdlPath);
    const recordedOptions = (record?.options ?? {}) as {
      toolsFile?: string;
      controllerMode?: ControllerMode;
      simulateApis?: boolean;
      apiModel?: string;
    };
    // A resumed session answers its APIs as it did: simulated ones stay simulated, by the same model.
    const simulateApis = flags.simulateApis === true || recordedOptions.simulateApis === true;
    const apiModelSpec = flags.apiModel ?? recordedOptions.apiModel;
    const toolsFile = flags.tools ?? recordedOptions.toolsFile;
    const tools = await loadRunTools({ toolsFile, planFile: pdlPath }, signal, isolationLimits({}, context.config));
    closeTools = () => tools.toolSet?.close() ?? Promise.resolve();
    const loaded = await loadModel(flags.model ?? record?.model, context.config);
    // With tracing on, a `chat` span per call (see `turn` below for the span around each bot turn).
    const model = tracedModel(loaded.model, {
      costOf: loaded.costOf,
      redactToolArgs: toolArgsRedactor(tools.toolSet?.tools ?? []),
    });
    if (model.kind !== 'real')
      output.log(`(${model.kind} model ${model.id}: replies are ${model.kind === 'sim' ? 'simulated' : 'scripted'})`);
    const apiModel =
      apiModelSpec === undefined
        ? undefined
        : await loadModel(apiModelSpec, context.config).then((api) => tracedModel(api.model, { costOf: api.costOf }));
    const verbose = flags.verbose === true;
    conversation = await createConversation(pdl, {
      model,
      tools: tools.toolSet?.tools ?? [],
      ...(simulateApis ? { simulateApis } : {}),
      ...(apiModel ? { apiModel } : {}),
      controllerMode: record ? (recordedOptions.controllerMode ?? controllerMode) : controllerMode,
      ...(maxActionsPerTurn !== undefined ? { maxActionsPerTurn } : {}),
      store,
      ...(budget ? { budget, budgetFields: BUDGET_FLAG_FIELDS } : {}),
      ...(flags.session !== undefined ? { sessionId: flags.session } : {}),
      sessionOptions: {
        ...(toolsFile !== undefined ? { toolsFile: resolve(toolsFile) } : {}),
        ...(simulateApis ? { simulateApis } : {}),
        // As the bot's model is recorded: by the id of the model made from the spec.
        ...(apiModel ? { apiModel: apiModel.id } : {}),
      },
      onEvent: eventPrinter(verbose, output),
    });
    const session = conversation;
    // Each bot turn is an `invoke_agent {procedure}` span, a trace of its own; the session id ties them together.
    const turn = (user: string | undefined, work: () => Promise<TurnResult>) =>
      traceAgent(
        {
          agent: pdl.name,
          attributes: {
            'weft.command': 'chat',
            'gen_ai.conversation.id': session.sessionId,
          },
          ...(user !== undefined ? { content: { 'weft.user.message': user } } : {}),
        },
        work,
        (result) => ({
          'weft.turn': session.state.turn,
          'weft.tool_calls': result.events.filter((event) => event.type === 'tool-call').length,
          'weft.session.ended': session.state.ended,
        }),
      );
    output.log(
      inertText(
        `${record ? 'resuming' : 'session'} ${session.sessionId} — ${pdl.name}${record ? ` (${record.turns} turns so far)` : ''}. /end ends it, /quit leaves it open.`,
      ),
    );
    if (session.pdlChanged) output.log(`note: ${pdlPath} changed since the session started`);
    const start = session.events.find((event) => event.type === 'session-start');
    if (start?.type === 'session-start' && start.simulatedApis?.length)
      output.log(
        inertText(
          `(simulated APIs, answered by ${start.apiModel ?? model.id}, not by the APIs: ${start.simulatedApis.join(', ')})`,
        ),
      );
    if (record && !output.json) {
      for (const entry of transcriptOf(session.events).entries) {
        const line = formatTranscriptEntry(entry, verbose);
        if (line !== undefined) output.text(line);
      }
    }
    // Ctrl-C typed on a terminal reaches readline, not the process: it cuts the reply in flight through this.
    const typedInterrupt = new AbortController();
    const interruptTurn = () => typedInterrupt.abort();
    const turnSignal = AbortSignal.any([signal, typedInterrupt.signal]);
    const turns: TurnSummary[] = [];
    // The reply is printed as it streams in (not under --json: stdout is the one document there).
    const printer = output.json ? undefined : replyPrinter(output);
    const show = (user: string, result: TurnResult) => {
      const toolCalls = result.events.filter((event) => event.type === 'tool-call').length;
      const rejections = result.events.filter((event) => event.type === 'verdict' && !event.accepted).length;
      turns.push({
        turn: session.state.turn,
        user,
        reply: result.reply,
        toolCalls,
        rejections,
        ...(result.cut ? { cut: result.cut } : {}),
      });
      const note = result.cut ? ` ${cutNote(result.cut.chars)}` : '';
      if (printer?.finish(note)) {
        if (result.cut) output.log(inertText(`(the reply stopped: ${result.cut.reason}; what arrived is kept)`));
        return;
      }
      output.text(inertText(`bot> ${result.reply}${note}`));
    };
    const turnOptions = { signal: turnSignal, ...(printer ? { onStream: printer.hear } : {}) };
    // The deadline ends the chat even while it waits for the user's next line.
    const budgetSignal = session.budget?.signal;
    const lineSignal = budgetSignal ? AbortSignal.any([signal, budgetSignal]) : signal;
    let interrupted: boolean;
    try {
      if (session.pendingTurn && !session.state.ended) {
        output.log('finishing the turn that was cut short…');
        show('(resumed turn)', await turn(undefined, () => session.continueTurn(turnOptions)));
      }
      interrupted = await readLines(input, output, lineSignal, interruptTurn, async (line) => {
        const text = line.trim();
        if (text === '/quit') return 'stop';
        if (text === '/end' || text === '[END]') {
          await session.end('user');
          return 'stop';
        }
        if (text === '') return 'go';
        if (session.state.ended) {
          output.log('this session has ended; start a new one with weft chat FILE');
          return 'stop';
        }
        // Read from a pipe, the user's lines are not on the screen: echo them so the output reads as a transcript.
        if (input.isTTY !== true) output.text(inertText(`you> ${echoed(line)}`));
        show(line, await turn(line, () => session.send(line, turnOptions)));
        return session.state.ended ? 'stop' : 'go';
      });
    } catch (error) {
      if (!(isWeftError(error) && error.code === 'BUDGET' && session.budget?.stop())) throw error;
      interrupted = false;
    }
    const state = session.state;
    const spent = signal.aborted ? undefined : session.budget?.stop();
    if (spent) {
      interrupted = false;
      // Spent while waiting for a line (the deadline): recorded here; a spent turn recorded it already.
      await session.markBudgetStop();
    }
    const budgetError = spent ? session.budget?.error() : undefined;
    if (output.json) {
      output.document({
        sessionId: session.sessionId,
        procedure: pdl.name,
        status: state.ended ? 'ended' : 'open',
        interrupted,
        turns,
        totals: transcriptOf(session.events).totals,
        ...(budget && session.budget
          ? { budget: { limits: budget, usage: session.budget.usage(), ...(spent ? { stopped: spent } : {}) } }
          : {}),
        ...(budgetError
          ? { error: { code: budgetError.code, message: budgetError.message, location: budgetError.location } }
          : {}),
      });
    }
    if (budgetError) {
      output.log(`weft: ${formatError(budgetError)}`);
      output.log(
        `session ${session.sessionId} stopped by the budget and saved; go on with a larger one: weft chat --session ${session.sessionId} ${spent?.field} …`,
      );
      return 1;
    }
    if (!state.ended)
      output.log(`session ${session.sessionId} saved; resume with: weft chat --session ${session.sessionId}`);
    else output.log(`session ${session.sessionId} ended`);
    return interrupted ? 130 : 0;
  } finally {
    await conversation?.close().catch(() => {});
    await closeTools?.();
    await runStore.close();
  }
}

/**
 * Feeds each line to `handle` until it says stop, the input ends, or the signal aborts (Ctrl-C, SIGTERM). On a
 * terminal readline catches Ctrl-C itself, so it is wired to the same stop. Returns whether it was interrupted.
 */
async function readLines(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: Output,
  signal: AbortSignal,
  interrupt: () => void,
  handle: (line: string) => Promise<'go' | 'stop'>,
): Promise<boolean> {
  const terminal = input.isTTY === true && !output.json;
  // On a terminal, readline echoes what is typed and shows the prompt on stderr, so stdout stays the transcript.
  const lines = createInterface({
    input,
    ...(terminal ? { output: process.stderr } : {}),
    terminal,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let interrupted = signal.aborted;
  const stop = () => {
    interrupted = true;
    lines.close();
  };
  signal.addEventListener('abort', stop, { once: true });
  lines.on('SIGINT', () => {
    stop();
    interrupt();
  });
  try {
    if (terminal) lines.setPrompt('you> ');
    if (terminal) lines.prompt();
    for await (const line of lines) {
      if (interrupted) break;
      try {
        if ((await handle(line)) === 'stop') break;
      } catch (error) {
        if (signal.aborted) {
          interrupted = true;
          break;
        }
        throw error;
      }
      if (terminal) lines.prompt();
    }
  } finally {
    signal.removeEventListener('abort', stop);
    lines.close();
  }
  return interrupted;
}

/**
 * Prints a reply as its pieces arrive: `bot> ` before the first, each piece made inert. A withdrawn piece (a
 * proposal refused, a call retried) is marked so on its line and the reply starts again on the next. `finish` ends
 * the line (with `note`, e.g. that the reply was cut) and says whether anything was printed.
 */
function replyPrinter(output: Output): { hear: (event: StreamEvent) => void; finish: (note: string) => boolean } {
  let open = false;
  return {
    hear(event) {
      if (event.kind === 'discard') {
        if (open) output.write(' [withdrawn]\n');
        open = false;
        return;
      }
      if (event.text === '') return;
      if (!open) output.write('bot> ');
      open = true;
      output.write(inertText(event.text));
    },
    finish(note) {
      if (!open) return false;
      output.write(`${note}\n`);
      open = false;
      return true;
    },
  };
}

/** The `--verbose` view: detail events on stderr; a controller's guidance only when it changed since last shown. */
function eventPrinter(verbose: boolean, output: Output): (event: SessionEvent) => void {
  const shownGuidance = new Map<string, string>();
  return (event) => {
    if (!verbose) return;
    if (event.type === 'guidance') {
      if (shownGuidance.get(event.controller) === event.text) return;
      shownGuidance.set(event.controller, event.text);
    }
    const line = formatSessionEvent(event);
    if (line !== undefined) output.log(line);
  };
}

/** A piped line as the transcript echoes it: a runaway line (100 MB of junk on stdin) is cut, not copied out. */
function echoed(line: string): string {
  const limit = 4_000;
  return line.length <= limit ? line : `${line.slice(0, limit)}… (${line.length.toLocaleString('en-US')} characters)`;
}
