/**
 * The final answer of an agent that solves one instance, read from its last reply the same way in all four
 * variants of the FlowMind comparison (the execute stage of ES-P&E and ES-ReAct, solve.ts; the single-stage ReAct
 * and P&E baselines, single-stage.ts), so that the comparison measures the method, not the parser. Pure.
 *
 * In order:
 * 1. the whole reply is JSON (`6`, `"shipped"`, `{"total": 3}`);
 * 2. the whole reply is one scalar written as prose writes it: `**6**`, `` `6` ``, `6.` (emphasis, backticks, a
 *    closing full stop);
 * 3. values inside the text: each ```json fence and balanced `{…}`/`[…]` span (llm/extract-json.ts), and the
 *    scalar stated after the reply's LAST "answer" marker (`The answer is 6.`, `Final answer: "shipped"`,
 *    `**Answer:** true`). The value that ends latest in the text wins (the answer comes last; the prose before it
 *    may quote tool results), values that parse as written before those that needed jsonrepair.
 *
 * Strict about prose, so that a wrong or hedged answer never turns into a right one: only the last marker counts,
 * and what follows it up to the end of its sentence must be one scalar — a JSON number (digits grouped by commas,
 * `1,234`, allowed), `true`, `false`, `null`, a double-quoted JSON string, or a text in backticks. So "The answer
 * is 6 apples", "The answer is not 6", "The answer is 6 or 7" and "The answer is shipped" give no value from the
 * marker, and a bare text reply ("shipped") is never an answer. A scalar is read as JSON: `6` is the number 6 and
 * does not equal an expected string "6".
 */
import { type JsonValueCandidate, parseJsonValues } from '../llm/extract-json.js';

export type FinalAnswer =
  | { readonly ok: true; readonly value: unknown; readonly from: 'json' | 'scalar' | 'embedded' | 'prose' | 'repaired' }
  | { readonly ok: false; readonly error: string };

/** What an agent is told when its reply held no answer this parser can read (for a re-prompt). */
export const NO_ANSWER_ERROR =
  'no final answer found: give it as JSON on its own (e.g. 6, "shipped" or {"total": 3}), in a ```json block, or as "The answer is <JSON value>."';

export function parseFinalAnswer(text: string): FinalAnswer {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'the reply is empty; give the final answer as JSON' };
  const whole = tryJson(trimmed);
  if (whole.ok) return { ok: true, value: whole.value, from: 'json' };
  if (!trimmed.includes('\n')) {
    const scalar = scalarOf(stripSentenceEnd(trimmed));
    if (scalar.ok) return { ok: true, value: scalar.value, from: 'scalar' };
  }
  type Candidate = { value: unknown; end: number; repaired: boolean; from: 'embedded' | 'prose' | 'repaired' };
  const candidates: Candidate[] = parseJsonValues(text).map((found: JsonValueCandidate) => {
    const at = text.lastIndexOf(found.text);
    const repaired = found.source === 'repaired';
    return {
      value: found.value,
      end: at < 0 ? -1 : at + found.text.length,
      repaired,
      from: repaired ? 'repaired' : 'embedded',
    };
  });
  const marked = markedValue(text);
  if (marked) candidates.push({ value: marked.value, end: marked.end, repaired: false, from: 'prose' });
  const best = [
    ...candidates.filter((c) => !c.repaired).sort((a, b) => b.end - a.end),
    ...candidates.filter((c) => c.repaired).sort((a, b) => b.end - a.end),
  ][0];
  return best ? { ok: true, value: best.value, from: best.from } : { ok: false, error: NO_ANSWER_ERROR };
}

/**
 * Reads `first` with `read`; while it fails, asks again with the error (`ask` makes the model call and returns the
 * new reply), at most `maxRepairs` times. The execute stage and the baselines use it with the same bound.
 */
export async function readWithRepairs<T>(
  first: string,
  read: (text: string) => { ok: true; value: T } | { ok: false; error: string },
  ask: (error: string) => Promise<string>,
  maxRepairs: number,
): Promise<{ ok: true; value: T } | { ok: false; error: string; reply: string }> {
  let reply = first;
  for (let repairs = 0; ; repairs++) {
    const outcome = read(reply);
    if (outcome.ok) return outcome;
    if (repairs >= maxRepairs) return { ok: false, error: outcome.error, reply };
    reply = await ask(outcome.error);
  }
}

/** "answer" (as in "The answer is", "Final answer:", "**Answer**:"), then is / was / = / :, then the value. */
const MARKER = /\banswer\b[*_]*[ \t]*(?:(?:is|was|would be)\b[ \t]*:?|[:=])[ \t]*/gi;

/** The scalar after the last answer marker, and where it ends in the text; undefined when there is none. */
function markedValue(text: string): { value: unknown; end: number } | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of text.matchAll(MARKER)) last = match;
  if (!last) return undefined;
  const start = last.index + last[0].length;
  const line = text.slice(start).split('\n', 1)[0] ?? '';
  const lead = /^[*_]*/.exec(line)?.[0].length ?? 0;
  const rest = line.slice(lead);
  // A quoted or backticked value is read whole, whatever punctuation it holds.
  const quoted = rest.startsWith('"') ? jsonStringAt(rest) : rest.startsWith('`') ? backticked(rest) : undefined;
  if (quoted !== undefined) {
    const after = rest.slice(quoted.length);
    // Nothing may follow in its sentence: `"6" or "7"` is no answer.
    if (!/^[*_]*(?:[.;!?]?\s*$|[.;!?]\s)/.test(after)) return undefined;
    const value = scalarOf(quoted);
    return value.ok ? { value: value.value, end: start + lead + quoted.length } : undefined;
  }
  const clause = /^(.*?)(?:[.;!?](?=\s|$)|$)/.exec(rest)?.[1] ?? '';
  const value = scalarOf(clause.trim());
  return value.ok ? { value: value.value, end: start + lead + clause.length } : undefined;
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const GROUPED = /^-?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/;

/** One scalar as prose writes it (emphasis around it allowed), or not ok. */
function scalarOf(text: string): { ok: true; value: unknown } | { ok: false } {
  const bare = unwrapEmphasis(text.trim());
  if (bare === '') return { ok: false };
  if (NUMBER.test(bare)) return { ok: true, value: Number(bare) };
  if (GROUPED.test(bare)) return { ok: true, value: Number(bare.replaceAll(',', '')) };
  if (bare === 'true' || bare === 'false' || bare === 'null') return { ok: true, value: JSON.parse(bare) };
  if (bare.startsWith('"')) {
    const literal = jsonStringAt(bare);
    return literal !== undefined && literal.length === bare.length ? tryJson(literal) : { ok: false };
  }
  if (bare.startsWith('`') && bare.endsWith('`') && bare.length > 2) {
    const inner = bare.slice(1, -1);
    if (inner.includes('`') || inner.trim() === '') return { ok: false };
    const scalar = scalarOf(inner);
    return scalar.ok ? scalar : { ok: true, value: inner };
  }
  return { ok: false };
}

/** `**x**`, `__x__`, `*x*`, `_x_` → `x`. */
function unwrapEmphasis(text: string): string {
  const match = /^(\*\*|__|\*|_)(.+)\1$/s.exec(text);
  return match ? (match[2] ?? '').trim() : text;
}

/** Drops one closing full stop (or ! ;) and emphasis around it: `6.` → `6`, `**6**.` → `**6**`. */
function stripSentenceEnd(text: string): string {
  return text.replace(/[.;!]$/, '').trimEnd();
}

/** The JSON string literal at the start of `text` (quotes included), or undefined when it never closes. */
function jsonStringAt(text: string): string | undefined {
  for (let index = 1; index < text.length; index++) {
    const char = text[index];
    if (char === '\\') index++;
    else if (char === '"') return text.slice(0, index + 1);
  }
  return undefined;
}

/** `` `…` `` at the start of `text` (backticks included), or undefined. */
function backticked(text: string): string | undefined {
  const close = text.indexOf('`', 1);
  return close > 1 ? text.slice(0, close + 1) : undefined;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
