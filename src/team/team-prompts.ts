/**
 * Weft's own prompt text for DyLAN teams: an agent's answer (with its ratings of the peers, asked in the same
 * call, docs/algorithms.md#importance-scores) and the listwise ranker (docs/algorithms.md#team-reformation).
 *
 * As in the DyLAN paper's prompts (restated, not copied): agents reason in free text, thoroughly, and end with
 * their answer in a fixed form (`Answer: …`; code in a fenced block) with the ratings as `[[4, 2, 5]]` before it;
 * the ranker reads the solutions anonymously (numbered, no agent names), reasons step by step, and ends with the
 * numbers of the best, e.g. `[2, 4]`; the engine maps the numbers back to agents (llm-ranker.ts). Replies in
 * the JSON Weft asked for before (`{"answer", "reasoning", "ratings"}`, `{"ranking": [...]}`) are still read.
 *
 * The layout is a contract with the `sim:` model (src/team/sim-team.ts reads it to answer like a team member):
 * - the question follows a line `Question:`, its options a line `Options:` as `(A) …` lines;
 * - peers are listed after a line starting `The team's latest responses`, each as a block `Response <k>:` (or
 *   `Response <k> (your previous response):`) followed by a line `Answer: <answer>` (a multi-line answer follows
 *   `Answer:` in a ``` fence) and `Reasoning: <text>`;
 * - step 1 asks with a paragraph starting `Answer the question.`;
 * - the ranker lists `Solution <k>:` blocks after a line starting `Solutions to rank`, each followed by its
 *   `Answer:` line.
 * Change the layout only together with the sim.
 */
import { choiceLabel } from './extract-answer.js';
import type { AgentInput, AnswerKind, PeerResponse, TeamQuery } from './team.js';

/** How the reply must end, by answer kind: the form the answer is extracted from (extract-answer.ts). */
const ANSWER_FORM: Record<AnswerKind, string> = {
  choice: 'a last line `Answer: (X)`, where X is the letter of one option, e.g. `Answer: (B)`',
  exact: 'a last line `Answer: <the final answer only>`, e.g. `Answer: 42`',
  text: 'a last part starting with a line `Answer:` followed by your answer',
  code: 'the complete code in one fenced code block (```), the last one in your reply',
};

export function agentSystemPrompt(rolePrompt: string): string {
  return [
    rolePrompt.trim(),
    '',
    "You are one member of a team answering the same question over several rounds, like a debate. Explain your reasoning thoroughly in every round. When you see the team's latest responses, judge them on their merits: keep what is right and correct what is wrong.",
  ].join('\n');
}

/** The question, with its options labelled (A), (B), … */
export function questionBlock(query: TeamQuery): string {
  const lines = ['Question:', query.question.trim()];
  if (query.choices && query.choices.length > 0) {
    lines.push('', 'Options:', ...query.choices.map((choice, index) => `(${choiceLabel(index)}) ${choice}`));
  }
  return lines.join('\n');
}

/** One peer's block: `Response k:`, its answer and its reasoning. */
function peerBlock(heading: string, peer: PeerResponse): string {
  const answer = peer.answer.includes('\n')
    ? `Answer:\n\`\`\`\n${peer.answer}\n\`\`\``
    : `Answer: ${peer.answer === '' ? '(none given)' : peer.answer}`;
  const reasoning =
    peer.text.trim() === '' || peer.text.trim() === peer.answer.trim() ? '' : `\nReasoning: ${peer.text.trim()}`;
  return `${heading}\n${answer}${reasoning}`;
}

/**
 * The user message of an agent's call. Step 1: the question alone. Later steps: the peers in the order given
 * (already shuffled), its own previous response marked as such, and the request to examine them critically and to
 * rate every listed response 1–5 in that order, as `[[…]]`, before the answer.
 */
export function agentUserPrompt(input: AgentInput, self: string): string {
  const parts = [questionBlock(input.query)];
  const n = input.peers.length;
  const form = ANSWER_FORM[input.query.kind];
  if (n > 0) {
    parts.push(
      "The team's latest responses to this question (in random order):",
      ...input.peers.map((peer, index) =>
        peerBlock(`Response ${index + 1}${peer.agent === self ? ' (your previous response)' : ''}:`, peer),
      ),
      `Use the reasoning in these responses as advice, with critical thinking: examine your own solution and the others step by step, keeping in mind that they may all be wrong. Then give your updated answer. Along the way, score each of the ${n} responses above from 1 (poor) to 5 (excellent), in the order they are listed, and write all ${n} scores as one list in double brackets, e.g. [[${exampleScores(n)}]], before your answer.`,
      `End your reply with ${form}.`,
    );
  } else {
    parts.push(`Answer the question. Explain your reasoning thoroughly, then end your reply with ${form}.`);
  }
  return parts.join('\n\n');
}

/** `4, 2, 5, …`: an example list of n scores for the prompt. */
function exampleScores(n: number): string {
  const pattern = [4, 2, 5, 3, 1];
  return Array.from({ length: n }, (_, index) => pattern[index % pattern.length]).join(', ');
}

export const RANKER_SYSTEM_PROMPT =
  'You judge the solutions a team gave to one question and pick the ones most likely to be correct and useful. You do not know who wrote which.';

/**
 * The ranker's user message; `responses` in the order shown (already shuffled), numbered from 1 and anonymous:
 * no agent names, so the judgement rests on the solutions alone (the numbers are mapped back in llm-ranker.ts).
 */
export function rankerUserPrompt(query: TeamQuery, responses: readonly PeerResponse[], keep: number): string {
  const best = Math.max(1, Math.min(keep, responses.length));
  const example = Array.from({ length: best }, (_, index) => index + 1).join(', ');
  return [
    questionBlock(query),
    'Solutions to rank (in random order):',
    ...responses.map((response, index) => peerBlock(`Solution ${index + 1}:`, response)),
    `Choose the best ${best} of these ${responses.length} solutions. Think it through step by step, then end your reply with the numbers of the best ${best}, best first, in square brackets, e.g. [${example}].`,
  ].join('\n\n');
}
