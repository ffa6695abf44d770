/**
 * Reading the answer out of free text, for replies that are not the JSON the prompt asked for
 * (docs/algorithms.md#answer-agreement: agreement is decided on extracted answers). Lenient on purpose: a re-prompt
 * would cost a call, and DyLAN's measure is calls per query. The JSON path is in llm-agent.ts (`readAgentReply`); it
 * uses these for the rest.
 */
import type { TeamQuery } from './team.js';

export type AnswerQuery = Pick<TeamQuery, 'kind' | 'choices'>;

/** The label of option `index` in prompts: A, B, C, … */
export function choiceLabel(index: number): string {
  return String.fromCharCode(65 + index);
}

/**
 * The option letter an answer names: `B`, `(b)`, `B.`, `B) Paris`, `Option B`, or an option's own text
 * (`Paris` → `B`, ignoring case and surrounding punctuation). Letters beyond the options are rejected.
 * `''` when the answer names no option.
 */
export function toChoiceLetter(answer: string, choices: readonly string[] | undefined): string {
  const trimmed = answer.trim().replace(/^[*_`"']+|[*_`"']+$/g, '');
  const labelled = /^(?:(?:option|choice|answer)\s*[:-]?\s*)?\(?([A-Za-z])(?:\)|\.|:|$)/i.exec(trimmed);
  if (labelled) {
    const letter = labelled[1]!.toUpperCase();
    if (isLabel(letter, choices)) return letter;
  }
  if (choices) {
    const wanted = simplify(trimmed);
    const index = choices.findIndex((choice) => simplify(choice) === wanted);
    if (index >= 0) return choiceLabel(index);
  }
  return '';
}

/**
 * The answer in a free-text reply, by kind:
 * - `choice`: the last `\boxed{…}` (`\boxed{\text{B}}` too), then the last `answer is (B)` / `Answer: B` /
 *   `**Answer**: B`, then the last `(B)` or a `(B` ending a line (the paper's "last `(X`" rule, kept to line ends
 *   so an aside like `(A quick note…` is not read as A), then the whole reply as a letter or an option's text,
 *   then the last letter standing alone before `)` (`… is A) Alveoli.`); `''` when none names an option.
 *   `answer to the question is …` counts as an answer statement.
 * - `exact`: the last `\boxed{…}`, else the answer statement (`Answer: …`, `the answer is …`) that comes last
 *   in the text — by position, not by pattern, so an early `one answer: the area` loses to a later `So the answer
 *   is 12` — else the last non-empty line; math delimiters (`$…$`, `\(…\)`) are removed.
 * - `text`: what follows the last `Answer:` line start, else the whole reply.
 * - `code`: the last fenced code block, else the whole reply.
 */
export function extractAnswer(text: string, query: AnswerQuery): string {
  switch (query.kind) {
    case 'choice':
      return extractChoice(text, query.choices);
    case 'exact':
      return extractExact(text);
    case 'text': {
      // The last `Answer:` at a line start: a draft answer followed by more thinking must not win.
      const last = [...text.matchAll(/(?:^|\n)[ \t]*\**answer\**[ \t]*:/gi)].at(-1);
      return (last ? text.slice(last.index + last[0].length) : text).trim();
    }
    case 'code':
      return extractCode(text);
  }
}

/** Applies the same rules to an answer given in a JSON field, where it may still say `(B) Paris` or `\boxed{7}`. */
export function cleanAnswer(answer: string, query: AnswerQuery): string {
  if (query.kind === 'choice') return toChoiceLetter(answer, query.choices) || extractChoice(answer, query.choices);
  if (query.kind === 'exact') {
    const boxed = lastBoxed(answer);
    return unwrapMath(boxed ?? answer);
  }
  if (query.kind === 'code') return extractCode(answer);
  return answer.trim();
}

function extractChoice(text: string, choices: readonly string[] | undefined): string {
  const boxed = lastBoxed(text);
  if (boxed !== undefined) {
    const letter = toChoiceLetter(unwrapMath(boxed), choices);
    if (letter) return letter;
  }
  // Upper-case letters, or any letter in brackets: "the answer is a matter of…" must not read as A.
  // `\**` after "Answer" admits Markdown bold: `**Answer**: B`.
  // `the answer to the question is A)` and `the answer for this question is (B)` too.
  const stated = [
    ...text.matchAll(
      /\b[Aa]nswer\**(?:\s+(?:to|for)\s+(?:the|this)\s+question)?(?:\s+is)?\s*[:：]?\s*\**\s*(?:\(([A-Za-z])\)|([A-Z])(?![A-Za-z]))/g,
    ),
  ]
    .map((m) => (m[1] ?? m[2]!).toUpperCase())
    .filter((letter) => isLabel(letter, choices));
  if (stated.length > 0) return stated.at(-1)!;
  // `(B)` anywhere, or an unclosed `(B` at the end of a line (DyLAN reads the last `(X`); last by position.
  const bracketed = [...text.matchAll(/\(([A-Z])(?:\)|(?=[ \t.,;:!?]*(?:\n|$)))/g)]
    .map((m) => m[1]!)
    .filter((letter) => isLabel(letter, choices));
  if (bracketed.length > 0) return bracketed.at(-1)!;
  const whole = toChoiceLetter(text, choices);
  if (whole) return whole;
  // `A) Alveoli` as the last option named: the DyLAN authors' fallback form, kept to a letter standing alone
  // (not the end of a word, a bracketed aside or `N/A`) so `(see Figure 2b)` and `(N/A)` do not read as B or A.
  const closed = [...text.matchAll(/(?<![A-Za-z0-9(/])([A-Z])\)/g)]
    .map((m) => m[1]!)
    .filter((letter) => isLabel(letter, choices));
  return closed.at(-1) ?? '';
}

/**
 * The option letter as the DyLAN authors' MMLU code reads it: the last `(X)` with X one of A–D in either case,
 * else the last `X)`; `''` when neither occurs. Kept exactly (not Weft's reading) so that a recorded run replays
 * with the stops its authors' code made (docs/teams.md#replaying-recorded-runs). Note that it reads `(b)` in
 * `see (b) below` and the `d)` ending `and)`; Weft's own reading (`extractAnswer`) does not.
 */
export function extractChoiceAsDylan(text: string): string {
  const bracketed = [...text.matchAll(/\(([ABCDabcd])\)/g)].at(-1);
  if (bracketed) return bracketed[1]!.toUpperCase();
  const closed = [...text.matchAll(/([ABCDabcd])\)/g)].at(-1);
  return closed ? closed[1]!.toUpperCase() : '';
}

/**
 * Ratings as the DyLAN authors' code reads them: the last `[[…]]` (shortest match, so `[[5, 5], [4, 3]]` reads
 * `5, 5], [4, 3`), spaces removed, split at commas, each item an integer or 0 (`N/A`, `-`, `4.5` all give 0).
 * `[]` when there is no `[[`. Compare `readAgentReply` (llm-agent.ts), Weft's own reading.
 */
export function ratingsAsDylan(text: string): number[] {
  const last = [...text.matchAll(/\[\[(.*?)\]\]/g)].at(-1);
  if (!last) return [];
  return last[1]!
    .replace(/ /g, '')
    .split(',')
    .map((item) => (/^[-+]?\d+$/.test(item.trim()) ? Number.parseInt(item, 10) : 0));
}

/**
 * The authors' edge weights from ratings (DyLAN §3.4 as their code computes it): a rating r in 1–5 gives r/5,
 * above 5 gives 1, 0 or less gives 0; a list of the wrong length gives all 0; then normalised to sum 1, or equal
 * weights when the sum is 0.
 */
export function edgeWeightsAsDylan(ratings: readonly number[], peerCount: number): number[] {
  if (peerCount === 0) return [];
  const raw =
    ratings.length === peerCount
      ? ratings.map((r) => (r > 5 ? 1 : r > 0 ? r / 5 : 0))
      : Array.from({ length: peerCount }, () => 0);
  const sum = raw.reduce((a, b) => a + b, 0);
  return sum > 0 ? raw.map((w) => w / sum) : raw.map(() => 1 / peerCount);
}

/** `Answer: …` to the end of the line, and `the answer is …` to the end of the sentence. */
const ANSWER_STATEMENTS: readonly RegExp[] = [
  /\b(?:final\s+)?answer\**[ \t]*[:：][ \t]*([^\n]+)/gi,
  /\bthe (?:final )?answer is[ \t]*:?[ \t]*([^\n]+?)(?:\.(?:\s|$)|\n|$)/gi,
];

function extractExact(text: string): string {
  const boxed = lastBoxed(text);
  if (boxed !== undefined) return unwrapMath(boxed);
  // The statement that starts last wins, whichever its pattern: models restate the answer at the end, and the
  // Minerva form `Final Answer: The final answer is $42$. I hope it is correct.` nests one inside the other.
  let last: { index: number; answer: string } | undefined;
  for (const pattern of ANSWER_STATEMENTS) {
    for (const match of text.matchAll(pattern)) {
      if (stripEnd(match[1]!) !== '' && (last === undefined || match.index >= last.index))
        last = { index: match.index, answer: match[1]! };
    }
  }
  if (last !== undefined) return unwrapMath(stripEnd(last.answer));
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return unwrapMath(stripEnd(lines.at(-1) ?? ''));
}

/**
 * An answer without the LaTeX around it: `$42$`, `$$42$$`, `\(42\)`, `\[42\]`, `\boxed{42}`, `\text{Paris}`
 * (also `\textbf`, `\mathrm`, `\mathbf`, `\mbox`) when they wrap the whole answer, repeatedly; inline
 * `\text{ cm}` keeps its content. Used for extraction and for `exact` agreement.
 */
export function unwrapMath(answer: string): string {
  let current = answer.trim();
  for (;;) {
    const next = unwrapOnce(current).trim();
    if (next === current) break;
    current = next;
  }
  return current.replace(/\\(?:text|textbf|mathrm|mathbf|mbox)\s*\{([^{}]*)\}/g, '$1').trim();
}

function unwrapOnce(text: string): string {
  const delimited = /^(?:\$\$([\s\S]*)\$\$|\$([\s\S]*)\$|\\\(([\s\S]*)\\\)|\\\[([\s\S]*)\\\])$/.exec(text);
  if (delimited) {
    const inner = delimited[1] ?? delimited[2] ?? delimited[3] ?? delimited[4]!;
    // `$5 and $6` is not one math span: the inside must not hold another delimiter of the same kind.
    if (!(delimited[2] !== undefined && inner.includes('$'))) return inner;
  }
  const command = /^\\(?:boxed|text|textbf|mathrm|mathbf|mbox)\s*\{/.exec(text);
  if (command && closingBrace(text, command[0].length - 1) === text.length - 1)
    return text.slice(command[0].length, -1);
  return text;
}

/** The index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}' && --depth === 0) return index;
  }
  return -1;
}

function extractCode(text: string): string {
  const fences = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)];
  const last = fences.at(-1);
  return (last ? last[1]! : text).trim();
}

/** The content of the last `\boxed{…}`, braces balanced. */
function lastBoxed(text: string): string | undefined {
  const start = text.lastIndexOf('\\boxed{');
  if (start < 0) return undefined;
  const end = closingBrace(text, start + 6);
  return end < 0 ? undefined : text.slice(start + 7, end);
}

function stripEnd(answer: string): string {
  return answer
    .trim()
    .replace(/^[*_`]+|[*_`]+$/g, '')
    .replace(/[.;,]+$/, '')
    .trim();
}

function isLabel(letter: string, choices: readonly string[] | undefined): boolean {
  const index = letter.charCodeAt(0) - 65;
  return index >= 0 && index < (choices?.length ?? 26);
}

function simplify(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'`*_.,;:!?()[\]]+|[\s"'`*_.,;:!?()[\]]+$/g, '');
}
