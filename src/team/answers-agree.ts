/**
 * Whether two extracted answers agree (docs/algorithms.md#answer-agreement): identical after normalisation for `choice`
 * and `exact`, sentence BLEU ≥ 0.9 for `text` and `code`.
 */
import { unwrapMath } from './extract-answer.js';
import type { AnswerKind } from './team.js';
import { sentenceBleu } from './sentence-bleu.js';

export const BLEU_AGREEMENT = 0.9;

/** Punctuation, quotes and markup that may wrap an answer without changing it: `"B."`, `**42**`, `(b)`. */
const SURROUNDING = /^[\s"'`*_.,;:!?()[\]{}<>]+|[\s"'`*_.,;:!?()[\]{}<>]+$/g;
/** The same for exact answers, except a leading `.` before a digit: `.5` is a number, not `5`. */
const SURROUNDING_EXACT = /^(?:[\s"'`*_,;:!?()[\]{}<>]|\.(?!\d))+|[\s"'`*_.,;:!?()[\]{}<>]+$/g;
const NUMBER = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;
const CHOICE_LETTER = /^\(?([a-z])(?:\)|\.|:|$)/i;

/**
 * The form answers are compared in. `choice`: the upper-case option letter (`(b) Paris` → `B`) when the
 * answer starts with one. `exact`: LaTeX wrappers removed (`$42$`, `\(42\)`, `\boxed{\text{Paris}}`, see
 * `unwrapMath`), lower case, single spaces, no surrounding punctuation, and numbers in canonical form
 * (`1,000.50` → `1000.5`, `.5` → `0.5`) so `42` and `42.0` agree. `text`: lower case, single spaces, no
 * surrounding punctuation.
 * `code`: trimmed only — case and layout can matter in code.
 */
export function normaliseAnswer(answer: string, kind: AnswerKind): string {
  const trimmed = answer.trim();
  switch (kind) {
    case 'choice': {
      const letter = CHOICE_LETTER.exec(trimmed.replace(/^[*_`"']+|[*_`"']+$/g, '').trim());
      if (letter) return letter[1]!.toUpperCase();
      return simplify(trimmed);
    }
    case 'exact': {
      // Markup and a final full stop first (`**$42$**`, `\(42\).`; brackets stay, they may be `\(…\)`), then
      // the math inside, then the rest of the surrounding punctuation and a currency sign (`$42`).
      const unwrapped = unwrapMath(trimmed.replace(/^[\s"'`*_]+|[\s"'`*_.,;:!?]+$/g, ''));
      const simple = unwrapped
        .toLowerCase()
        .replace(/\s+/g, ' ')
        .replace(SURROUNDING_EXACT, '')
        .replace(/^\$|\$$/g, '');
      const number = NUMBER.test(simple) && /\d/.test(simple) ? Number(simple.replace(/,/g, '')) : Number.NaN;
      return Number.isFinite(number) ? String(number) : simple;
    }
    case 'text':
      // Surrounding punctuation too: BLEU on a one-word answer would part `Paris` from `Paris.`.
      return simplify(trimmed);
    case 'code':
      return trimmed;
  }
}

/** True when nothing could be extracted: the answer normalises to `''` (blank, or only punctuation/markup). */
export function isNoAnswer(answer: string, kind: AnswerKind): boolean {
  return normaliseAnswer(answer, kind) === '';
}

/**
 * True when `a` and `b` are the same answer. An empty answer (nothing could be extracted) agrees with
 * nothing, not even another empty one, so "no answer" never forms a consensus.
 * BLEU is not symmetric (the brevity penalty and the precisions' denominators follow the candidate), so
 * `text`/`code` use the mean of both directions: neither the shorter nor the longer answer decides alone.
 */
export function answersAgree(a: string, b: string, kind: AnswerKind): boolean {
  const left = normaliseAnswer(a, kind);
  const right = normaliseAnswer(b, kind);
  if (left === '' || right === '') return false;
  if (left === right) return true;
  if (kind === 'choice' || kind === 'exact') return false;
  return (sentenceBleu(left, right) + sentenceBleu(right, left)) / 2 >= BLEU_AGREEMENT;
}

function simplify(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').replace(SURROUNDING, '');
}
