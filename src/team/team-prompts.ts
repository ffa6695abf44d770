/**
 * Weft's own prompt text for DyLAN teams: an agent's answer (with its ratings of the peers, asked in the same
 * call, docs/algorithms.md#importance-scores) and the listwise ranker (docs/algorithms.md#team-reformation).
 *
 * The layout is a contract with the `sim:` model (src/llm/sim-team.ts reads it to answer like a team member):
 * - peers are listed after a line starting `The team's latest responses`, each as a block `Response <k>:` (or
 *   `Response <k> (your previous response):`) followed by a line `Answer: <answer>` (a multi-line answer follows
 *   `Answer:` in a ``` fence) and `Reasoning: <text>`;
 * - the ranker lists `[<k>] agent "<name>"` blocks, each followed by its `Answer:` line, and asks for
 *   `{"ranking": [...]}`.
 * Change the layout only together with the sim.
 */
import { choiceLabel } from './extract-answer.js';
import type { AgentInput, AnswerKind, PeerResponse, TeamQuery } from './team.js';

const ANSWER_HINT: Record<AnswerKind, string> = {
  choice: 'the letter of one option, e.g. "B"',
  exact: 'the final answer only, e.g. a number or a short phrase',
  text: 'your answer',
  code: 'the complete code, as a string',
};

export function agentSystemPrompt(rolePrompt: string): string {
  return [
    rolePrompt.trim(),
    '',
    "You are one member of a team answering the same question. You may see the team's latest responses; judge them on their merits, keep what is right and correct what is wrong.",
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
 * (already shuffled), its own previous response marked as such, and the request to rate every listed response
 * 1–5 in that order, in the same JSON as the answer.
 */
export function agentUserPrompt(input: AgentInput, self: string): string {
  const parts = [questionBlock(input.query)];
  const n = input.peers.length;
  if (n > 0) {
    parts.push(
      "The team's latest responses to this question (in random order):",
      ...input.peers.map((peer, index) =>
        peerBlock(`Response ${index + 1}${peer.agent === self ? ' (your previous response)' : ''}:`, peer),
      ),
      `Think about these responses critically, then give your own answer. Along with the answer, rate each of the ${n} responses above from 1 (poor) to 5 (excellent), in the order they are listed.`,
      'Reply with one JSON object and nothing else:',
      `{"answer": "<${ANSWER_HINT[input.query.kind]}>", "reasoning": "<a few sentences>", "ratings": [<${n} integers from 1 to 5>]}`,
    );
  } else {
    parts.push(
      'Answer the question. Reply with one JSON object and nothing else:',
      `{"answer": "<${ANSWER_HINT[input.query.kind]}>", "reasoning": "<a few sentences>"}`,
    );
  }
  return parts.join('\n\n');
}

export const RANKER_SYSTEM_PROMPT =
  'You judge the responses of a team of agents to one question and rank them by how likely each is to be correct and useful.';

/** The ranker's user message; `responses` in the order shown (already shuffled), numbered from 1. */
export function rankerUserPrompt(query: TeamQuery, responses: readonly PeerResponse[], keep: number): string {
  return [
    questionBlock(query),
    'Responses (in random order):',
    ...responses.map((response, index) =>
      peerBlock(`[${index + 1}] agent ${JSON.stringify(response.agent)}`, response),
    ),
    `Rank the agents by the quality of their responses and name at least the best ${keep}. Reply with one JSON object and nothing else, best first:`,
    `{"ranking": [${responses
      .slice(0, Math.max(1, keep))
      .map((_, i) => `"<agent name ${i + 1}>"`)
      .join(', ')}]}`,
    'You may give the numbers in brackets instead of the names, e.g. {"ranking": [2, 1]}.',
  ].join('\n\n');
}
