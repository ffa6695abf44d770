/**
 * The simulated model (`sim:<options>`, see sim-options.ts): seeded latency, failures and answers in the
 * shape each purpose needs, for benchmarks and tests at any scale without a real model.
 *
 * Determinism: every random draw comes from a generator seeded by
 * `(seed, tag.purpose, tag.key, tag.attempt, n, stream)`, where `n` counts earlier calls with the same
 * purpose, key and attempt, and `stream` names the decision (`latency`, `error`, `badjson`, `plan`, …).
 * Nothing depends on the order of calls across keys, so concurrent schedules and resumed runs see the same
 * answers; and changing one probability (say `error`) does not reshuffle the others' outcomes.
 *
 * The prompt protocol (the tags the engines' prompts use, see src/plan/prompts.ts):
 * - `plan`: the task in `<task>…</task>` → `{"roles":[{name,prompt}],"subtasks":[{id,objective,agent,dependsOn}]}`,
 *   a random valid DAG with ids `t1…tn` (n from `tasks`), edges only from lower to higher ids; with `width`,
 *   levels of at most `width` subtasks.
 * - `execute` → `sim output for <key> (attempt <attempt>)`, followed by ` [missing input from a, b]` naming the
 *   parents (`<input from="a">` blocks) whose output is `none` or itself names a missing input.
 * - `verify`: the output under review in `<output>…</output>` → `replan` ("output is missing") when it is
 *   empty or `none`; else `replan` with probability `fail`; else `accept`.
 * - `update`: the workflow JSON in `<workflow>…</workflow>`, ids to repair in `<failed>a, b</failed>` and the
 *   completed results in `<result id="a">` blocks → the same subtasks with the objective of each failed one and of
 *   each whose result is `none` suffixed ` (revised)` (once), or `{}` when there is none.
 * - `answer` (a DyLAN team member, see sim-team.ts; the peers shown are read from the prompt in the layout of
 *   src/team/team-prompts.ts) → `{"answer","reasoning"}`, plus `"ratings"` (1–5 per peer) when peers are shown.
 *   The answer is right with probability `accuracy`, else `wrong-<1..3>` (right: the literal `correct`, or with
 *   `answers=<dataset>` the question's gold answer from that key, see sim-answer-key.ts); a wrong agent that sees peers
 *   takes their majority answer with probability `follow`. With options shown it answers with a letter: the
 *   option `correct` is the right one.
 * - `rank` (the team's listwise ranker): the anonymous `Solution k:` blocks of the prompt →
 *   `{"ranking":[numbers…]}`, the agents with right answers first with probability `accuracy`.
 * - `worfbench` (src/eval's WorfBench prompt): the task and its action list are the last user message →
 *   a workflow text (`Node:` lines `k: text`, then `Edge: (START,1) …`): n nodes (from `tasks`), each a
 *   fragment of the task text (so a lexical similarity gives partial credit), and a random DAG with edges
 *   only from lower to higher numbers, START before every node without a parent and END after every node
 *   without a child. `badjson` replaces it by a reply cut inside its `Node:` header (no usable workflow).
 * - `converse`, `simulate-user`, `judge` (conversational procedures): the bot, the simulated user and the
 *   judge, from the blocks of src/llm/dialog-prompt-tags.ts (sim-dialog.ts); `violate` and `noise` are theirs.
 *   They answer tools themselves (the bot calls what the procedure allows, `toolcalls` does not apply);
 *   `badjson` cuts a judge's JSON reply like the other structured replies.
 * - anything else → `sim reply`.
 * Tools: when a call offers tools (`call.tools`, toolChoice not `none`), the sim first makes `toolcalls` tool calls,
 * one per reply, then answers as above for the call's purpose; it knows where it is by counting the tool results
 * already in the conversation (toolChoice `required` makes it call a tool every time). Each call picks a tool
 * (uniformly) and draws arguments from its input schema (sim-tool-args.ts); with probability `toolwrong` the name
 * is one no tool has (`<name>_v2`), with probability `toolbadargs` the arguments break the schema. Those draws
 * are seeded by `(seed, purpose, key, attempt, the count of results)`, not by the call counter, so a conversation
 * resumed from a log replays the same calls. Ids are `call_<n>`; `badjson` does not touch tool calls.
 * `badjson` replaces a structured reply (plan, verify, update, rank) by one cut inside its first key — still
 * JSON-looking, but no repair can restore it; a team answer with ratings is cut inside its ratings list instead
 * (the answer stays readable, the ratings do not). `error` throws a retryable `PROVIDER` error after the latency;
 * a transport retry of the same call (`tag.retry`, set by withRetries) draws its latency and error anew (streams
 * `latency@retry<r>`, `error@retry<r>`) but gives the same reply, so `error` faults are independent per try.
 */
import { WeftError } from '../errors.js';
import type { CallTag, ChatCall, ChatModel, ChatResult, ToolCallRequest, ToolDeclaration } from './chat-model.js';
import { parseJsonLoose } from './extract-json.js';
import {
  bernoulli,
  integerSample,
  pick,
  randomFrom,
  shuffled,
  uniformSample,
  type RandomSource,
} from './seeded-random.js';
import { simQuestionKey, type SimAnswerKey } from './sim-answer-key.js';
import { isSimDialogPurpose, simDialogReply } from './sim-dialog.js';
import {
  readTeamPrompt,
  SIM_RIGHT_ANSWER,
  SIM_WRONG_ANSWERS,
  simRanking,
  simTeamAnswer,
  type SimTeamPrompt,
} from './sim-team.js';
import {
  DEFAULT_SIM_OPTIONS,
  formatSimOptions,
  parseSimOptions,
  sampleLatencyMs,
  validateSimOptions,
  type SimOptions,
} from './sim-options.js';
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

const STRUCTURED_PURPOSES: ReadonlySet<CallTag['purpose']> = new Set(['plan', 'verify', 'update', 'rank', 'judge']);

const ROLE_NAMES = ['planner', 'coder', 'writer', 'reviewer'] as const;

export const REVISED_SUFFIX = ' (revised)';

/**
 * A sim model from a spec body (`'fail=0.1,seed=7'`) or from options (missing ones take the defaults). With the
 * `answers` option, pass the loaded key as `answerKey` (`createModel` loads it from the file).
 */
export function simModel(
  options: string | Partial<SimOptions> = {},
  settings: { readonly id?: string; readonly answerKey?: SimAnswerKey } = {},
): SimModel {
  const resolved =
    typeof options === 'string' ? parseSimOptions(options) : validateSimOptions({ ...DEFAULT_SIM_OPTIONS, ...options });
  if (resolved.answers !== undefined && settings.answerKey === undefined) {
    throw new WeftError(
      'MODEL_SPEC',
      `the sim option answers=${resolved.answers} needs its key loaded: make the model with createModel, or pass answerKey`,
      { location: { field: 'answers' } },
    );
  }
  const answerKey = settings.answerKey;
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
      // The dialog roles answer tools themselves (the bot's calls follow the procedure, not `toolcalls`).
      if (isSimDialogPurpose(tag.purpose)) {
        const reply = simDialogReply(tag.purpose, call, resolved);
        if (reply.toolCalls !== undefined) {
          const written = JSON.stringify(reply.toolCalls.map((c) => ({ tool: c.name, args: c.args })));
          return { text: reply.text, toolCalls: reply.toolCalls, usage: estimateUsage(call, written), model: 'sim' };
        }
        let text = reply.text;
        if (STRUCTURED_PURPOSES.has(tag.purpose) && bernoulli(stream('badjson'), resolved.badjson)) {
          text = malformed(text, stream('badjson-cut'));
        }
        return { text, usage: estimateUsage(call, text), model: 'sim' };
      }
      const tools = call.toolChoice === 'none' ? [] : (call.tools ?? []);
      const results = call.messages.filter((message) => message.role === 'tool').length;
      if (tools.length > 0 && (results < resolved.toolcalls || call.toolChoice === 'required')) {
        const toolStream = (name: string): RandomSource =>
          randomFrom(resolved.seed, tag.purpose, tag.key, tag.attempt, 'tools', results, name);
        const toolCall = simToolCall(tools, resolved, toolStream, toolCallId(nextToolCallNumber(call.messages)));
        const written = JSON.stringify({ tool: toolCall.name, args: toolCall.args });
        return { text: '', toolCalls: [toolCall], usage: estimateUsage(call, written), model: 'sim' };
      }
      let text = simReply(tag, call, resolved, stream, answerKey);
      if (STRUCTURED_PURPOSES.has(tag.purpose) && bernoulli(stream('badjson'), resolved.badjson)) {
        text = malformed(text, stream('badjson-cut'));
      } else if (tag.purpose === 'answer' && bernoulli(stream('badjson'), resolved.badjson)) {
        text = cutRatings(text, stream('badjson-cut'));
      }
      return { text, usage: estimateUsage(call, text), model: 'sim' };
    },
  };
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

function simReply(
  tag: CallTag,
  call: ChatCall,
  options: SimOptions,
  stream: (name: string) => RandomSource,
  answerKey: SimAnswerKey | undefined,
): string {
  switch (tag.purpose) {
    case 'plan':
      return JSON.stringify(simPlan(tagContent(call, 'task') ?? '', options, stream('plan')));
    case 'execute':
      return simExecute(tag, userText(call));
    case 'verify':
      return JSON.stringify(simVerdict(tagContent(call, 'output', true), options.fail, stream('fail')));
    case 'update':
      return JSON.stringify(simUpdate(tagContent(call, 'workflow'), tagContent(call, 'failed'), userText(call)));
    case 'answer':
      return JSON.stringify(simTeamReply(userText(call), options, stream, answerKey));
    case 'rank': {
      const prompt = readTeamPrompt(userText(call));
      return JSON.stringify({
        // The solutions are numbered and anonymous: the ranking is their numbers.
        ranking: simRanking(prompt.responses, options.accuracy, stream('rank'), rightAnswer(prompt, answerKey)).map(
          Number,
        ),
      });
    }
    case 'worfbench': {
      const text = simWorkflowText(lastUserMessage(call), options, stream('worfbench'));
      return bernoulli(stream('badjson'), options.badjson)
        ? text.slice(0, integerSample(stream('badjson-cut'), 1, 4))
        : text;
    }
    default:
      // A judge of a finished run (weft run --judge-model sim:) judges the result as the strategies bench's check
      // does: sound unless a "none" or a missing input reached it.
      if (tag.key === 'task-check') {
        const result = tagContent(call, 'result', true);
        // A result of several final subtasks comes as `## id` sections: each must be sound.
        const parts = (result === '(no result)' ? '' : (result ?? '')).split(/^## .*$/m).filter((p) => p.trim() !== '');
        const success = parts.length > 0 && parts.every((part) => simOutputSound(part));
        return JSON.stringify({
          success,
          reason: success ? 'the result is complete' : 'the result is missing or built on a missing input',
        });
      }
      return 'sim reply';
  }
}

/** A team member's reply: answer, reasoning and (when peers are shown) ratings; a letter when options are shown. */
function simTeamReply(
  text: string,
  options: SimOptions,
  stream: (name: string) => RandomSource,
  answerKey: SimAnswerKey | undefined,
): object {
  const prompt = readTeamPrompt(text);
  const { options: choices, responses } = prompt;
  const right = rightAnswer(prompt, answerKey);
  const optionTexts = [...choices.values()];
  const reply = simTeamAnswer(
    responses.map((response) => response.answer),
    options,
    { answer: stream('answer'), wrong: stream('wrong'), follow: stream('follow'), ratings: stream('ratings') },
    choices.size > 0 ? optionTexts.filter((option) => option !== right) : SIM_WRONG_ANSWERS,
    right,
  );
  const letter = [...choices].find(([, text]) => text === reply.answer)?.[0];
  return {
    answer: letter ?? reply.answer,
    reasoning: reply.reasoning,
    ...(responses.length > 0 ? { ratings: reply.ratings } : {}),
  };
}

/** The question's gold answer from the answer key (an option's text, or the answer), else the literal `correct`. */
function rightAnswer(prompt: SimTeamPrompt, answerKey: SimAnswerKey | undefined): string {
  return answerKey?.get(simQuestionKey(prompt.question)) ?? SIM_RIGHT_ANSWER;
}

/** A team answer cut inside its ratings list (fewer ratings than peers, no closing bracket); unchanged without ratings. */
function cutRatings(text: string, random: RandomSource): string {
  const start = text.indexOf('"ratings":[');
  if (start < 0) return text;
  const open = start + '"ratings":['.length;
  const items = text.slice(open, text.indexOf(']', open)).split(',');
  return `${text.slice(0, open)}${items.slice(0, integerSample(random, 0, items.length - 1)).join(',')}`;
}

/**
 * A seeded workflow in WorfBench's text form for a task: nodes are fragments of the task text, edges a random
 * DAG from lower to higher numbers, closed with START and END so every node lies on a START→END path.
 */
export function simWorkflowText(task: string, options: Pick<SimOptions, 'tasks'>, random: RandomSource): string {
  const count = integerSample(random, options.tasks.min, options.tasks.max);
  const pool = taskFragments(task);
  const available = shuffled(random, pool);
  const nodes = Array.from({ length: count }, (_, index) => available[index] ?? pick(random, pool));
  const density = uniformSample(random, 0.1, 0.5);
  const edges: [number, number][] = [];
  for (let to = 2; to <= count; to++) {
    for (let from = 1; from < to; from++) if (random() < density) edges.push([from, to]);
  }
  const hasParent = new Set(edges.map(([, to]) => to));
  const hasChild = new Set(edges.map(([from]) => from));
  const written = [
    ...nodes.flatMap((_, index) => (hasParent.has(index + 1) ? [] : [`(START,${index + 1})`])),
    ...edges.map(([from, to]) => `(${from},${to})`),
    ...nodes.flatMap((_, index) => (hasChild.has(index + 1) ? [] : [`(${index + 1},END)`])),
  ];
  return ['Node:', ...nodes.map((node, index) => `${index + 1}: ${node}`), `Edge: ${written.join(' ')}`].join('\n');
}

/** Sentence-sized pieces of a task (3 to 20 words, plain characters), or a stand-in when it has none. */
function taskFragments(task: string): string[] {
  const fragments = task
    .split(/\[SEP\]|[\n.;!?]/)
    .map((piece) =>
      piece
        .replace(/[^\p{L}\p{N}\s'/-]/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((piece) => !/^(node|edges?|graph)\b/i.test(piece))
    .map((piece) => piece.split(' ').slice(0, 20).join(' '))
    .filter((piece) => piece.split(' ').length >= 3);
  return fragments.length > 0 ? [...new Set(fragments)] : ['carry out the task'];
}

function userText(call: ChatCall): string {
  return call.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
}

function lastUserMessage(call: ChatCall): string {
  return [...call.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
}

export interface SimPlan {
  roles: { name: string; prompt: string }[];
  subtasks: { id: string; objective: string; agent: string; dependsOn: string[] }[];
}

/** A seeded random valid plan: ids t1…tn, edges only from lower to higher ids. */
export function simPlan(task: string, options: Pick<SimOptions, 'tasks' | 'width'>, random: RandomSource): SimPlan {
  const count = integerSample(random, options.tasks.min, options.tasks.max);
  const roles = shuffled(random, ROLE_NAMES).slice(0, integerSample(random, 2, 3));
  const density = uniformSample(random, 0.1, 0.5);
  const topic = summarize(task);
  const dependsOn: string[][] = Array.from({ length: count }, () => []);
  if (options.width === undefined) {
    for (let j = 1; j < count; j++) {
      for (let i = 0; i < j; i++) if (random() < density) dependsOn[j]!.push(`t${i + 1}`);
    }
  } else {
    // Levels of 1..width subtasks; each subtask below the first level depends on one subtask of the level
    // just above (so its level is exact) and, rarely, on earlier ones.
    const levels: number[][] = [];
    for (let index = 0; index < count; ) {
      const size = Math.min(count - index, integerSample(random, 1, options.width));
      levels.push(Array.from({ length: size }, (_, k) => index + k));
      index += size;
    }
    for (let level = 1; level < levels.length; level++) {
      const above = levels[level - 1]!;
      const earlier = levels.slice(0, level - 1).flat();
      for (const node of levels[level]!) {
        const parents = new Set<number>([pick(random, above)]);
        for (const candidate of [...above, ...earlier]) if (random() < density / 2) parents.add(candidate);
        dependsOn[node] = [...parents].sort((a, b) => a - b).map((parent) => `t${parent + 1}`);
      }
    }
  }
  return {
    roles: roles.map((name) => ({ name, prompt: `You are the ${name}.` })),
    subtasks: dependsOn.map((parents, index) => {
      const agent = pick(random, roles);
      return {
        id: `t${index + 1}`,
        objective: `Part ${index + 1} of ${count} (${agent}) of: ${topic}`,
        agent,
        dependsOn: parents,
      };
    }),
  };
}

function simVerdict(
  output: string | undefined,
  fail: number,
  random: RandomSource,
): { verdict: 'accept' | 'replan'; reason: string } {
  const trimmed = output?.trim();
  if (trimmed === '' || trimmed === 'none') return { verdict: 'replan', reason: 'output is missing' };
  if (bernoulli(random, fail)) return { verdict: 'replan', reason: 'simulated verification failure' };
  return { verdict: 'accept', reason: 'meets the objective' };
}

/** A parent's output that says its work is missing: the mask itself, or work built on a masked input. */
const MISSING_INPUT = 'missing input from';
const INPUT_BLOCK = /<input from="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/input>/g;
const RESULT_BLOCK = /<result id="([^"]*)">\n([\s\S]*?)\n<\/result>/g;

/**
 * The agent carries on with what it is given, as the Flow paper observes of a masked input: a parent output of
 * `none` (or one that was itself built on such) is named in the reply, so an independent check can tell.
 */
function simExecute(tag: CallTag, prompt: string): string {
  const reply = `sim output for ${tag.key ?? 'task'} (attempt ${tag.attempt ?? 1})`;
  const missing = [...prompt.matchAll(INPUT_BLOCK)]
    .filter(([, , output]) => output!.trim() === 'none' || output!.includes(MISSING_INPUT))
    .map(([, id]) => id!);
  return missing.length === 0 ? reply : `${reply} [${MISSING_INPUT} ${missing.join(', ')}]`;
}

/** Whether a sim run's outputs are all sound: none is masked or built on a masked input (the bench's check). */
export function simOutputSound(output: string | undefined): boolean {
  return output !== undefined && output.trim() !== 'none' && output.trim() !== '' && !output.includes(MISSING_INPUT);
}

function simUpdate(workflowText: string | undefined, failedText: string | undefined, prompt: string): object {
  const failed = new Set(
    (failedText ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
  // A review that sees a completed result of `none` revises that subtask, so it runs again (and what it feeds, too).
  for (const [, id, output] of prompt.matchAll(RESULT_BLOCK)) if (output!.trim() === 'none') failed.add(id!);
  if (failed.size === 0 || workflowText === undefined) return {};
  const parsed = parseJsonLoose(workflowText);
  if (!parsed.ok) return {};
  const subtasks = (parsed.value as { subtasks?: unknown }).subtasks;
  if (!Array.isArray(subtasks)) return {};
  return {
    subtasks: subtasks.filter(isRecord).map((raw) => {
      const id = String(raw.id);
      const objective = String(raw.objective ?? '');
      return {
        id,
        objective: failed.has(id) && !objective.endsWith(REVISED_SUFFIX) ? `${objective}${REVISED_SUFFIX}` : objective,
        agent: raw.agent,
        dependsOn: Array.isArray(raw.dependsOn) ? raw.dependsOn : [],
      };
    }),
  };
}

/** The reply cut inside its first key: `{"verd`. Repair gives `{"verd": null}`, which no schema accepts. */
function malformed(text: string, random: RandomSource): string {
  const colon = text.indexOf(':');
  if (!text.startsWith('{"') || colon < 0) return '{"unfinish';
  // text[colon - 1] is the key's closing quote; keep at least one character of the key, drop at least one.
  const keyEnd = colon - 1;
  return text.slice(0, integerSample(random, 3, Math.max(3, keyEnd - 1)));
}

/**
 * The text inside `<name>…</name>` in the user messages (the whole prompt as a fallback): from the first
 * opening tag to the first closing tag after it, or to the last one when `toLast` (an output under review
 * may itself mention the tag).
 */
function tagContent(call: ChatCall, name: string, toLast = false): string | undefined {
  const userText = call.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  return (
    between(userText, name, toLast) ??
    between([call.system ?? '', ...call.messages.map((m) => m.content)].join('\n'), name, toLast)
  );
}

function between(text: string, name: string, toLast: boolean): string | undefined {
  const open = `<${name}>`;
  const close = `</${name}>`;
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const end = toLast ? text.lastIndexOf(close) : text.indexOf(close, start + open.length);
  if (end < start + open.length) return undefined;
  return text
    .slice(start + open.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function summarize(task: string): string {
  const line = task.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line || 'the task';
}
