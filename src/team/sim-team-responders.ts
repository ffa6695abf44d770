/**
 * What the `sim:` model answers to a DyLAN team's calls (the behaviour is sim-team.ts's; the prompts are read in
 * the layout of team-prompts.ts):
 * - `answer` (a team member) → `{"answer","reasoning"}`, plus `"ratings"` (1–5 per peer) when peers are shown.
 *   The answer is right with probability `accuracy`, else `wrong-<1..3>` (right: the literal `correct`, or with
 *   `answers=<dataset>` the question's gold answer from that key, sim-answer-key.ts); a wrong agent that
 *   sees peers takes their majority answer with probability `follow`. With options shown it answers with a
 *   letter: the option `correct` is the right one. `badjson` cuts it inside its ratings list (the answer stays
 *   readable, the ratings do not).
 * - `rank` (the listwise ranker): the anonymous `Solution k:` blocks of the prompt → `{"ranking":[numbers…]}`,
 *   the agents with right answers first with probability `accuracy`; `badjson` cuts it inside its first key.
 */
import { bernoulli, integerSample, type RandomSource } from '../llm/seeded-random.js';
import { simMaybeBadJson } from '../llm/sim-bad-json.js';
import { simUserText } from '../llm/sim-call-text.js';
import type { SimOptions } from '../llm/sim-options.js';
import type { SimResponder } from '../llm/sim-responders.js';
import {
  readTeamPrompt,
  SIM_RIGHT_ANSWER,
  SIM_WRONG_ANSWERS,
  simRanking,
  simTeamAnswer,
  type SimTeamPrompt,
} from './sim-team.js';
import { simQuestionKey, type SimAnswerKey } from './sim-answer-key.js';
import { simAnswerKeyOf } from './sim-team-options.js';

/** The team's responders by purpose (src/sim-responders.ts registers them). */
export const teamSimResponders: Readonly<Record<string, SimResponder>> = Object.freeze({
  answer: {
    respond: (context) => {
      const { call, options, stream } = context;
      const text = JSON.stringify(simTeamReply(simUserText(call), options, stream, simAnswerKeyOf(context)));
      return bernoulli(stream('badjson'), options.badjson) ? cutRatings(text, stream('badjson-cut')) : text;
    },
  },
  rank: {
    respond: (context) => {
      const prompt = readTeamPrompt(simUserText(context.call));
      const ranking = simRanking(
        prompt.responses,
        context.options.accuracy,
        context.stream('rank'),
        rightAnswer(prompt, simAnswerKeyOf(context)),
      );
      // The solutions are numbered and anonymous: the ranking is their numbers.
      return simMaybeBadJson(JSON.stringify({ ranking: ranking.map(Number) }), context);
    },
  },
});

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
