/**
 * Reading the answer out of free text, for replies that are not the JSON the prompt asked for (SPEC §3.3:
 * agreement is decided on extracted answers). Lenient on purpose: a re-prompt would cost a call, and DyLAN's
 * measure is calls per query. The JSON path is in llm-agent.ts (`readAgentReply`); it uses these for the rest.
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
  const labelled = /^(?:(?:option|choice|answer)\s*[:\-]?\s*)?\(?([A-Za-z])(?:\)|\.|:|$)/i.exec(trimmed);
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
 * - `choice`: the last `\boxed{…}`, then the last `answer is (B)` / `Answer: B`, then the last `(B)`, then the
 *   whole reply as a letter or an option's text; `''` when none names an option.
 * - `exact`: the last `\boxed{…}`, then the last `Answer: …` line, then the last `the answer is …` sentence,
 *   then the last non-empty line.
 * - `text`: what follows the last `Answer:`, else the whole reply.
 * - `code`: the last fenced code block, else the whole reply.
 */
export function extractAnswer(text: string, query: AnswerQuery): string {
  switch (query.kind) {
    case 'choice':
      return extractChoice(text, query.choices);
    case 'exact':
      return extractExact(text);
    case 'text': {
      const match = lastMatch(text, /(?:^|\n)\s*\**answer\**\s*:\s*([\s\S]+)$/gi);
      return (match ?? text).trim();
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
    return (boxed ?? answer).trim();
  }
  if (query.kind === 'code') return extractCode(answer);
  return answer.trim();
}

function extractChoice(text: string, choices: readonly string[] | undefined): string {
  const boxed = lastBoxed(text);
  if (boxed !== undefined) {
    const letter = toChoiceLetter(boxed, choices);
    if (letter) return letter;
  }
  // Upper-case letters, or any letter in brackets: "the answer is a matter of…" must not read as A.
  const stated = [...text.matchAll(/\b[Aa]nswer(?:\s+is)?\s*[:：]?\s*\**\s*(?:\(([A-Za-z])\)|([A-Z])(?![A-Za-z]))/g)]
    .map((m) => (m[1] ?? m[2]!).toUpperCase())
    .filter((letter) => isLabel(letter, choices));
  if (stated.length > 0) return stated.at(-1)!;
  const bracketed = [...text.matchAll(/\(([A-Z])\)/g)].map((m) => m[1]!.toUpperCase()).filter((letter) => isLabel(letter, choices));
  if (bracketed.length > 0) return bracketed.at(-1)!;
  return toChoiceLetter(text, choices);
}

function extractExact(text: string): string {
  const boxed = lastBoxed(text);
  if (boxed !== undefined) return boxed.trim();
  const line = lastMatch(text, /\b(?:final\s+)?answer\**[ \t]*[:：][ \t]*([^\n]+)/gi);
  if (line !== undefined) return stripEnd(line);
  const sentence = lastMatch(text, /\bthe (?:final )?answer is[ \t]*:?[ \t]*([^\n]+?)(?:\.(?:\s|$)|\n|$)/gi);
  if (sentence !== undefined) return stripEnd(sentence);
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return stripEnd(lines.at(-1) ?? '');
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
  let depth = 0;
  for (let index = start + 6; index < text.length; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}' && --depth === 0) return text.slice(start + 7, index);
  }
  return undefined;
}

function lastMatch(text: string, pattern: RegExp): string | undefined {
  const matches = [...text.matchAll(pattern)];
  return matches.at(-1)?.[1];
}

function stripEnd(answer: string): string {
  return answer.trim().replace(/^[*_`]+|[*_`]+$/g, '').replace(/[.;,]+$/, '').trim();
}

function isLabel(letter: string, choices: readonly string[] | undefined): boolean {
  const index = letter.charCodeAt(0) - 65;
  return index >= 0 && index < (choices?.length ?? 26);
}

function simplify(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').replace(/^[\s"'`*_.,;:!?()[\]]+|[\s"'`*_.,;:!?()[\]]+$/g, '');
}
