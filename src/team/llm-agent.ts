/**
 * An LLM team member (docs/algorithms.md#temporal-feed-forward-network and #importance-scores): one model call per
 * response, answering in free text and rating the peers it was shown in the same call. Replies are read leniently —
 * a JSON answer object first (the form Weft asked for before), then the answer form the prompt asks for and other
 * answer patterns in the text — and never re-prompted: each response costs exactly one call, and unreadable ratings are
 * replaced by equal weights with `ratingsParsed: false` (counted by the engine), not guessed.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { parseJsonValues } from '../llm/extract-json.js';
import { hashString } from '../llm/seeded-random.js';
import { cleanAnswer, extractAnswer, type AnswerQuery } from './extract-answer.js';
import type { AgentResponse, TeamAgent, TeamQuery } from './team.js';
import { agentSystemPrompt, agentUserPrompt } from './team-prompts.js';

export interface LlmAgentOptions {
  readonly name: string;
  /** The role prompt. */
  readonly prompt: string;
  readonly model: ChatModel;
}

/** The rating given to every peer when the ratings cannot be read: equal weights once normalised. */
export const NEUTRAL_RATING = 3;

export function createLlmAgent(options: LlmAgentOptions): TeamAgent {
  const { name, prompt, model } = options;
  const system = agentSystemPrompt(prompt);
  return {
    name,
    kind: 'llm',
    async respond(input, signal) {
      const result = await model.generate(
        {
          system,
          // Free text, not JSON: the agents reason at length and end with the answer (team-prompts.ts).
          messages: [{ role: 'user', content: agentUserPrompt(input, name) }],
          tag: { purpose: 'answer', key: answerKey(name, input.step, input.query), attempt: 1 },
        },
        signal,
      );
      return { ...readAgentReply(result.text, input.query, input.peers.length), calls: 1 };
    },
  };
}

/**
 * The tag key of an agent's call: agent, step and a hash of the question, so a seeded (`sim:`) model answers
 * each (agent, step, question) independently of scheduling and differently across questions.
 */
export function answerKey(agent: string, step: number, query: Pick<TeamQuery, 'question'>): string {
  return `${agent}/step-${step}/q-${hashString(query.question).toString(36)}`;
}

export type AgentReply = Omit<AgentResponse, 'calls' | 'tests'>;

/**
 * Reads a reply: the first JSON object with an `answer` field gives the answer (cleaned: `(B) Paris` → `B`),
 * its `reasoning` the text passed on, and its `ratings` (or `scores`) the ratings; otherwise the answer is
 * extracted from the text (`Answer: B`, `\boxed{…}`, …). Ratings outside that object come only from explicit
 * forms: another JSON object's `ratings`/`scores`, the paper's `[[1, 5, 2]]`, or a list labelled in the text
 * (`Ratings: [4, 2]`, `Scores: 4, 2`). A bare bracketed number in prose (`Response [5] looks off`) is a
 * reference, not a rating. Ratings must be `peerCount` numbers; values outside 1–5 are clamped (a 6 still means
 * "very good"); anything else gives NEUTRAL_RATING for every peer and `ratingsParsed: false`.
 */
export function readAgentReply(text: string, query: AnswerQuery, peerCount: number): AgentReply {
  const values = parseJsonValues(text).map((v) => v.value);
  const object = values.find((v): v is Record<string, unknown> => isRecord(v) && 'answer' in v);
  let answer = '';
  let passedOn = text.trim();
  let rawRatings: unknown;
  if (object) {
    answer = cleanAnswer(stringOf(object.answer), query);
    const reasoning = object.reasoning ?? object.explanation;
    if (typeof reasoning === 'string' && reasoning.trim() !== '') passedOn = reasoning.trim();
    rawRatings = object.ratings ?? object.scores;
  }
  // The `[[4, 2]]` ratings are not part of the answer (text answers run to the end, exact ones may fall back to
  // the last line); code keeps them, as a fenced block is read whole and may hold such a list.
  if (answer === '') answer = extractAnswer(query.kind === 'code' ? text : text.replace(PAPER_RATINGS, ' '), query);
  if (rawRatings === undefined) rawRatings = ratingsInText(text, values);
  const ratings = readRatings(rawRatings, peerCount);
  return {
    answer,
    text: passedOn,
    ratings: ratings ?? Array.from({ length: peerCount }, () => NEUTRAL_RATING),
    ratingsParsed: ratings !== undefined,
  };
}

/** The ratings in the DyLAN prompts' form, `[[4, 2, 5]]`. */
const PAPER_RATINGS = /\[\[\s*[-\d.\s,]*?\s*\]\]/g;

/** `peerCount` ratings clamped to 1–5, or undefined when they are not there. `[[…]]` is unwrapped. */
export function readRatings(raw: unknown, peerCount: number): number[] | undefined {
  if (peerCount === 0) return [];
  let list = raw;
  if (Array.isArray(list) && list.length === 1 && Array.isArray(list[0])) list = list[0];
  if (!Array.isArray(list) || list.length !== peerCount) return undefined;
  const numbers = list.map((item) =>
    typeof item === 'number' ? item : typeof item === 'string' && item.trim() !== '' ? Number(item) : Number.NaN,
  );
  if (!numbers.every(Number.isFinite)) return undefined;
  return numbers.map((value) => Math.min(5, Math.max(1, value)));
}

/**
 * Ratings outside the answer object, explicit forms only (the last of each): a JSON object's `ratings`/`scores`,
 * the paper's `[[…]]`, or a list after a `ratings:`/`scores:` label. Unlabelled arrays are not read: a prose
 * `[5]` is a reference to a response, and guessing it is a rating would skew importance without being counted.
 */
function ratingsInText(text: string, values: readonly unknown[]): unknown {
  const inObject = values
    .filter(isRecord)
    .map((v) => v.ratings ?? v.scores)
    .filter((v) => v !== undefined)
    .at(-1);
  if (inObject !== undefined) return inObject;
  const paper = [...text.matchAll(/\[\[\s*([-\d.\s,]+?)\s*\]\]/g)].at(-1);
  if (paper) return paper[1]!.split(',').map((s) => s.trim());
  const labelled = [
    ...text.matchAll(
      /\b(?:ratings?|scores?)\**[ \t]*[:=][ \t]*\[?[ \t]*(-?\d+(?:\.\d+)?(?:[ \t]*,[ \t]*-?\d+(?:\.\d+)?)*)[ \t]*\]?/gi,
    ),
  ].at(-1);
  if (labelled) return labelled[1]!.split(',').map((s) => s.trim());
  return undefined;
}

function stringOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
