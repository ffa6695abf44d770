/**
 * The simulated model (`sim:<options>`, see sim-options.ts): seeded latency, failures and tool calls, with the
 * reply itself written by the responder registered for the call's purpose (sim-responders.ts). The responders
 * live with the engines whose prompts they read: Flow's `plan`, `execute`, `verify` and `update` in
 * src/plan/sim-flow-responders.ts and the run's judge (`other`, key `task-check`) in src/run/sim-task-check.ts;
 * the team's `answer` and `rank` in src/team/sim-team-responders.ts; WorfBench's `worfbench` in
 * src/eval/sim-worfbench.ts; the conversation simulator's `converse`, `simulate-user` and `judge` in
 * src/dialog/sim-dialog.ts. src/sim-responders.ts registers them all when the library is imported. Distillation
 * (`solve`, `distill`) and simulated APIs (`simulate-api`) wrap the model instead (src/distill/distill-sim.ts,
 * src/tools/simulated-api-sim.ts). A purpose without a responder is an error naming it, except `other`, which
 * answers `sim reply` when nothing is registered for it.
 *
 * Determinism: every random draw comes from a generator seeded by
 * `(seed, tag.purpose, tag.key, tag.attempt, n, stream)`, where `n` counts earlier calls with the same
 * purpose, key and attempt, and `stream` names the decision (`latency`, `error`, `badjson`, `plan`, …).
 * Nothing depends on the order of calls across keys, so concurrent schedules and resumed runs see the same
 * answers; and changing one probability (say `error`) does not reshuffle the others' outcomes.
 *
 * Tools: when a call offers tools (`call.tools`, toolChoice not `none`) and its responder does not answer tools
 * itself, the sim first makes `toolcalls` tool calls, one per reply, then asks the responder for the answer; it
 * knows where it is by counting the tool results already in the conversation (toolChoice `required` makes it call
 * a tool every time). Each call picks a tool (uniformly) and draws arguments from its input schema
 * (sim-tool-args.ts); with probability `toolwrong` the name is one no tool has (`<name>_v2`), with probability
 * `toolbadargs` the arguments break the schema. Those draws are seeded by `(seed, purpose, key, attempt, the count
 * of results)`, not by the call counter, so a conversation resumed from a log replays the same calls. Ids are
 * `call_<n>`; `badjson` does not touch tool calls (responders apply it to their structured replies, sim-bad-json.ts).
 * `error` throws a retryable `PROVIDER` error after the latency; a transport retry of the same call (`tag.retry`,
 * set by withRetries) draws its latency and error anew (streams `latency@retry<r>`, `error@retry<r>`) but gives the
 * same reply, so `error` faults are independent per try.
 */
import { WeftError } from '../errors.js';
import type { CallTag, ChatCall, ChatModel, ChatResult, ToolCallRequest, ToolDeclaration } from './chat-model.js';
import { bernoulli, pick, randomFrom, type RandomSource } from './seeded-random.js';
import {
  defaultSimOptions,
  formatSimOptions,
  parseSimOptions,
  sampleLatencyMs,
  simOptionKeys,
  validateSimOptions,
  type SimOptions,
} from './sim-options.js';
import { noSimResponderError, simResponderFor, type SimCallContext, type SimReply } from './sim-responders.js';
import { simBadToolArgs, simToolArgs } from './sim-tool-args.js';
import { sleep, throwIfAborted } from './timeout.js';
import { nextToolCallNumber, toolCallId } from './tool-call-ids.js';
import { VirtualClock } from './virtual-clock.js';
import { estimateUsage } from './token-estimate.js';

export interface SimModel extends ChatModel {
  readonly kind: 'sim';
  readonly options: SimOptions;
  /** Calls received so far (including those that failed). */
  readonly callCount: number;
}

/** What an `other` call gets when no responder is registered for it: a plain reply, as any untagged call gets. */
const PLAIN_REPLY = 'sim reply';

/**
 * A sim model from a spec body (`'fail=0.1,seed=7'`) or from options (missing ones take the defaults). An option
 * that names a file (a team's `answers=`) needs what it reads in `loaded`, by option name (`createModel` reads it).
 */
export function simModel(
  options: string | Partial<SimOptions> = {},
  settings: { readonly id?: string; readonly loaded?: ReadonlyMap<string, unknown> } = {},
): SimModel {
  const resolved =
    typeof options === 'string' ? parseSimOptions(options) : validateSimOptions({ ...defaultSimOptions(), ...options });
  const loaded = settings.loaded ?? new Map<string, unknown>();
  for (const key of simOptionKeys()) {
    const value = (resolved as unknown as Record<string, unknown>)[key.name];
    if (key.load !== undefined && value !== undefined && !loaded.has(key.name)) {
      throw new WeftError(
        'MODEL_SPEC',
        `the sim option ${key.name}=${String(value)} needs its file read: make the model with createModel, or pass loaded: new Map([["${key.name}", …]])`,
        { location: { field: key.name } },
      );
    }
  }
  const id = settings.id ?? `sim:${formatSimOptions(resolved)}`;
  const counters = new Map<string, number>();
  const clock = resolved.clock === 'virtual' ? new VirtualClock() : undefined;
  let callCount = 0;
  return {
    id,
    kind: 'sim',
    // It answers `tools` itself, with seeded tool calls.
    toolCalling: 'native',
    options: resolved,
    get callCount() {
      return callCount;
    },
    async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      throwIfAborted(signal);
      callCount++;
      const tag: CallTag = call.tag ?? { purpose: 'other' };
      // Looked up before any latency: a purpose nothing answers is a mistake in the setup, not a flaky call.
      const responder = simResponderFor(tag.purpose);
      if (responder === undefined && tag.purpose !== 'other') throw noSimResponderError(tag.purpose);
      const counterKey = JSON.stringify([tag.purpose, tag.key ?? null, tag.attempt ?? null]);
      // A recorder that numbers calls (`tag.sequence`) wins over the local count, so a resumed run that replays
      // its first calls from the log still draws the same numbers for the ones it makes anew.
      // A transport retry (`tag.retry`) is the same call again, not a new one: same n, same reply.
      const retry = tag.retry ?? 0;
      const n =
        tag.sequence ??
        (retry > 0 ? Math.max(0, (counters.get(counterKey) ?? 1) - 1) : (counters.get(counterKey) ?? 0));
      if (retry === 0) counters.set(counterKey, n + 1);
      const stream = (name: string): RandomSource =>
        randomFrom(resolved.seed, tag.purpose, tag.key, tag.attempt, n, name);
      // ... but its latency and provider error are drawn anew (still seeded), so retries recover from `error` as
      // they would from a real provider's; the first try keeps the streams it always had.
      const transport = (name: string): RandomSource => (retry === 0 ? stream(name) : stream(`${name}@retry${retry}`));

      const latencyMs = sampleLatencyMs(resolved.latency, transport('latency'));
      await (clock ? clock.sleep(latencyMs, signal) : sleep(latencyMs, signal));
      if (bernoulli(transport('error'), resolved.error)) {
        throw new WeftError('PROVIDER', 'simulated provider error (HTTP 503)', { retryable: true });
      }
      if (responder?.answersTools !== true) {
        const tools = call.toolChoice === 'none' ? [] : (call.tools ?? []);
        const results = call.messages.filter((message) => message.role === 'tool').length;
        if (tools.length > 0 && (results < resolved.toolcalls || call.toolChoice === 'required')) {
          const toolStream = (name: string): RandomSource =>
            randomFrom(resolved.seed, tag.purpose, tag.key, tag.attempt, 'tools', results, name);
          const toolCall = simToolCall(tools, resolved, toolStream, toolCallId(nextToolCallNumber(call.messages)));
          const written = JSON.stringify({ tool: toolCall.name, args: toolCall.args });
          return { text: '', toolCalls: [toolCall], usage: estimateUsage(call, written), model: 'sim' };
        }
      }
      if (responder === undefined) return { text: PLAIN_REPLY, usage: estimateUsage(call, PLAIN_REPLY), model: 'sim' };
      const context: SimCallContext = {
        call,
        tag,
        options: resolved,
        stream,
        loaded,
      };
      // Awaited only when it is a promise, so the built-in (synchronous) responders keep the timing they had.
      const answered = responder.respond(context);
      return simResult(call, answered instanceof Promise ? await answered : answered, tag.purpose);
    },
  };
}

function simResult(call: ChatCall, reply: SimReply, purpose: string): ChatResult {
  if (typeof reply === 'string') return { text: reply, usage: estimateUsage(call, reply), model: 'sim' };
  if (reply === null || typeof reply !== 'object' || typeof reply.text !== 'string') {
    throw new WeftError(
      'MODEL_CONFIG',
      `the sim responder for purpose "${purpose}" returned neither a string nor { text, toolCalls? }`,
      { location: { field: 'respond' } },
    );
  }
  if (reply.toolCalls !== undefined && reply.toolCalls.length > 0) {
    const written = JSON.stringify(reply.toolCalls.map((c) => ({ tool: c.name, args: c.args })));
    return { text: reply.text, toolCalls: reply.toolCalls, usage: estimateUsage(call, written), model: 'sim' };
  }
  return { text: reply.text, usage: estimateUsage(call, reply.text), model: 'sim' };
}

/** One seeded tool call: a tool, its name spoilt with P(toolwrong), arguments that break its schema with P(toolbadargs). */
export function simToolCall(
  tools: readonly ToolDeclaration[],
  options: Pick<SimOptions, 'toolwrong' | 'toolbadargs'>,
  stream: (name: string) => RandomSource,
  id: string,
): ToolCallRequest {
  const tool = pick(stream('tool'), tools);
  const names = new Set(tools.map((t) => t.name));
  let name = tool.name;
  if (bernoulli(stream('toolwrong'), options.toolwrong)) {
    name = `${tool.name}_v2`;
    while (names.has(name)) name = `${name}_v2`;
  }
  const args = bernoulli(stream('toolbadargs'), options.toolbadargs)
    ? simBadToolArgs(tool.inputSchema, stream('args'))
    : simToolArgs(tool.inputSchema, stream('args'));
  return { id, name, args };
}
