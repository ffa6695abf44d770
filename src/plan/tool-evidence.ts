/**
 * What the verifier is shown of an attempt's tool calls (docs/algorithms.md#what-the-verifier-is-shown-of-tool-calls):
 * each call with its arguments as the run's log keeps them (secret ones redacted) and its result or error, so that
 * an output claiming what the calls do not show (a refund that failed, an order never placed) can be rejected. Pure
 * and bounded: long values are cut with a note, and past a number of calls or characters the rest is left out,
 * saying how many.
 */
import { clip } from './prompts.js';

/** One tool call of an attempt, as its `tool-call` and `tool-result` records hold it (run/attempt-evidence.ts). */
export interface ToolEvidenceCall {
  /** Its number among the attempt's calls, from 0. */
  readonly sequence: number;
  readonly name: string;
  /** As the log records them: the tool's secret arguments are `[redacted]`. */
  readonly args: unknown;
  readonly ok: boolean;
  readonly result?: unknown;
  /** The tool's result was already cut (its `maxResultBytes`) before the agent saw it. */
  readonly truncated?: boolean;
  readonly error?: string;
  /** `TOOL`, `TIMEOUT` or `BAD_CALL`. */
  readonly code?: string;
}

/** Calls shown at most; failed ones are chosen first. */
export const MAX_EVIDENCE_CALLS = 20;
/** A call's arguments beyond this many characters are cut. */
export const MAX_EVIDENCE_ARGS_CHARS = 1_000;
/** A result or an error beyond this many characters is cut. */
export const MAX_EVIDENCE_RESULT_CHARS = 2_000;
/** The calls shown take at most this many characters in all (about as much as the output under review). */
export const MAX_EVIDENCE_CHARS = 12_000;
/** A tool name the model made up can be any length. */
const MAX_NAME_CHARS = 64;

/**
 * The `<tool-calls>` section of the verifier's prompt. Values are JSON (a string result as the agent saw it) with
 * `&` and `<` written as in XML, so a result cannot close the section or open one that looks like another (the
 * `sim:` model reads `<output>`).
 */
export function toolEvidenceSection(calls: readonly ToolEvidenceCall[]): string {
  const failed = calls.filter((call) => !call.ok).length;
  if (calls.length === 0)
    return '<tool-calls>\nnone: the agent made no tool call in this attempt, so nothing it claims was done by a tool\n</tool-calls>';
  const head = `The agent made ${count(calls.length, 'tool call')} in this attempt${failed > 0 ? `; ${failed} failed` : ''}. Arguments are as the run's log keeps them: secret ones read "[redacted]".`;
  const shown = chooseShown(calls);
  const left = calls.length - shown.length;
  const leftFailed = failed - shown.filter(({ call }) => !call.ok).length;
  const lines = [head, ...shown.map(({ text }) => text)];
  if (left > 0)
    lines.push(
      `[${count(left, 'more call')} not shown${leftFailed > 0 ? `, ${leftFailed} of them failed` : ''}: failed calls are shown first, then the latest]`,
    );
  return `<tool-calls>\n${lines.join('\n')}\n</tool-calls>`;
}

/**
 * The calls that fit, in call order: failed ones first (earliest first), then successful ones from the latest back,
 * while the count and the characters allow.
 */
function chooseShown(calls: readonly ToolEvidenceCall[]): { call: ToolEvidenceCall; text: string }[] {
  const ordered = [...calls].sort((a, b) => a.sequence - b.sequence);
  const priority = [...ordered.filter((call) => !call.ok), ...ordered.filter((call) => call.ok).reverse()];
  const chosen: { call: ToolEvidenceCall; text: string }[] = [];
  let chars = 0;
  for (const call of priority) {
    if (chosen.length >= MAX_EVIDENCE_CALLS) break;
    const text = renderCall(call);
    if (chars + text.length > MAX_EVIDENCE_CHARS) continue;
    chosen.push({ call, text });
    chars += text.length;
  }
  return chosen.sort((a, b) => a.call.sequence - b.call.sequence);
}

function renderCall(call: ToolEvidenceCall): string {
  const name = attribute(clip(call.name, MAX_NAME_CHARS));
  const status = call.ok ? 'ok' : `failed" code="${attribute(call.code ?? 'TOOL')}`;
  const args = `<arguments>${escapeText(clip(json(call.args), MAX_EVIDENCE_ARGS_CHARS))}</arguments>`;
  const end = call.ok
    ? `<result>${escapeText(clip(typeof call.result === 'string' ? call.result : json(call.result ?? null), MAX_EVIDENCE_RESULT_CHARS))}${call.truncated ? '\n…[the tool cut this result before the agent saw it]' : ''}</result>`
    : `<error>${escapeText(clip(call.error ?? 'failed', MAX_EVIDENCE_RESULT_CHARS))}</error>`;
  return `<call n="${call.sequence + 1}" tool="${name}" status="${status}">\n${args}\n${end}\n</call>`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** An attribute's value: escaped text on one line, without a quote that would end it. */
function attribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;').replace(/\s+/g, ' ');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
