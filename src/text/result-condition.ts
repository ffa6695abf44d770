/**
 * Result conditions of PDL preconditions (docs/pdl.md): `checkAvailability.is_air == "true"` asks that the latest
 * successful result of `checkAvailability` has `is_air` equal to "true", so that a call that succeeded but said
 * "no" does not unlock what depends on it. Reading the written form, writing it back, and judging a result against
 * it. Pure, and a leaf (the sim bot reads the same conditions from its prompt and judges them the same way).
 *
 * Comparison: `==` and `!=` compare JSON values, except that text and a number or true/false are compared as text
 * (`"true"` matches `true`, `"2"` matches `2`): APIs disagree on whether a flag is a boolean or a string, and the
 * procedure's author should not have to know which. `<`, `<=`, `>`, `>=` compare numbers, and accept a result's
 * text that is a decimal number. A field the result does not have fails every condition, `!=` included: the API
 * did not say what the condition asks about.
 */

export const CONDITION_OPERATORS = ['==', '!=', '<=', '>=', '<', '>'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
export type ConditionValue = string | number | boolean | null;

export interface ResultCondition {
  /** The API whose result is read. */
  readonly api: string;
  /** The field, as a path into the result: `['is_air']`, or `['flight', 'is_air']` for `flight.is_air`. */
  readonly field: readonly string[];
  readonly op: ConditionOperator;
  readonly value: ConditionValue;
}

/** A condition is at most this long: a name, a field path and a short value. */
export const MAX_CONDITION_CHARS = 1_000;
/** Names (the API, each field segment) are at most this long. */
const MAX_NAME_CHARS = 64;

const API_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELD_SEGMENT = /^[A-Za-z0-9_$-]+$/;
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether an entry of a precondition list is meant as a condition rather than an API name. */
export function looksLikeCondition(text: string): boolean {
  return /[=!<>]/.test(text);
}

/** The written form read into a condition, or a message saying what is wrong with it (to be located by the caller). */
export function parseResultCondition(text: string): { condition: ResultCondition } | { error: string } {
  const written = text.trim();
  if (written.length > MAX_CONDITION_CHARS) {
    return { error: `a condition of ${written.length} characters; at most ${MAX_CONDITION_CHARS}` };
  }
  const at = written.search(/[=!<>]/);
  if (at === -1) return { error: `${show(written)} has no operator (==, !=, <, <=, >, >=)` };
  const two = written.slice(at, at + 2);
  const op = (CONDITION_OPERATORS as readonly string[]).includes(two)
    ? (two as ConditionOperator)
    : written[at] === '<' || written[at] === '>'
      ? (written[at] as ConditionOperator)
      : undefined;
  if (op === undefined || /^(?:===|!==|=<|=>|<>)/.test(written.slice(at))) {
    const wrong = /^[=!<>]+/.exec(written.slice(at))?.[0] ?? written[at];
    return { error: `"${wrong}" is not an operator; use ==, !=, <, <=, > or >=` };
  }
  const left = written.slice(0, at).trim();
  const right = written.slice(at + op.length).trim();
  const target = readTarget(left);
  if ('error' in target) return target;
  const value = readValue(right, op);
  if ('error' in value) return value;
  return { condition: { api: target.api, field: target.field, op, value: value.value } };
}

/** The condition as docs and messages write it: `checkAvailability.is_air == "true"` (text in double quotes). */
export function conditionText(condition: ResultCondition, options: { readonly withApi?: boolean } = {}): string {
  const field = condition.field.join('.');
  const subject = options.withApi === false ? field : `${condition.api}.${field}`;
  return `${subject} ${condition.op} ${JSON.stringify(condition.value)}`;
}

export type ConditionJudgement =
  | { readonly holds: boolean; readonly found: true; readonly actual: unknown }
  | { readonly holds: false; readonly found: false };

/** Whether `result` (an API's result as recorded) meets the condition, and what the field held. */
export function judgeCondition(condition: ResultCondition, result: unknown): ConditionJudgement {
  const field = fieldOf(result, condition.field);
  if (!field.found) return { holds: false, found: false };
  return { holds: compare(field.value, condition.op, condition.value), found: true, actual: field.value };
}

/**
 * A field of a result. A result that is text holding a JSON object (an API that answers text/plain, or a result
 * kept as its JSON text because it nested too deep) is read as that object; a segment of digits indexes a list.
 */
export function fieldOf(result: unknown, path: readonly string[]): { found: true; value: unknown } | { found: false } {
  let value = typeof result === 'string' ? parseObject(result) : result;
  for (const segment of path) {
    if (Array.isArray(value) && /^\d+$/.test(segment) && Number(segment) < value.length) {
      value = value[Number(segment)];
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else {
      return { found: false };
    }
  }
  return { found: true, value };
}

function compare(actual: unknown, op: ConditionOperator, expected: ConditionValue): boolean {
  switch (op) {
    case '==':
      return equal(actual, expected);
    case '!=':
      return !equal(actual, expected);
    default: {
      const number = typeof actual === 'number' ? actual : typeof actual === 'string' ? numberIn(actual) : undefined;
      if (number === undefined || typeof expected !== 'number') return false;
      if (op === '<') return number < expected;
      if (op === '<=') return number <= expected;
      if (op === '>') return number > expected;
      return number >= expected;
    }
  }
}

function equal(actual: unknown, expected: ConditionValue): boolean {
  if (actual === expected) return true;
  if (typeof expected === 'string' && (typeof actual === 'number' || typeof actual === 'boolean'))
    return String(actual) === expected;
  if (typeof actual === 'string' && (typeof expected === 'number' || typeof expected === 'boolean'))
    return actual.trim() === String(expected);
  return false;
}

function numberIn(text: string): number | undefined {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return undefined;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : undefined;
}

function parseObject(text: string): unknown {
  if (!text.trimStart().startsWith('{')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function readTarget(left: string): { api: string; field: string[] } | { error: string } {
  if (left === '') return { error: 'the condition names no API: write API.field == value, e.g. check.ok == true' };
  const [api = '', ...field] = left.split('.');
  if (field.length === 0) {
    return { error: `${show(left)} names no field of a result: write ${left}.<field> (a field of its response)` };
  }
  if (!API_NAME.test(api) || api.length > MAX_NAME_CHARS) {
    return { error: `${show(api)} is not an API name: letters, digits and _, not starting with a digit` };
  }
  const bad = field.find((segment) => !FIELD_SEGMENT.test(segment) || segment.length > MAX_NAME_CHARS);
  if (bad !== undefined) {
    return {
      error:
        bad === ''
          ? `${show(left)} has an empty field name`
          : `${show(bad)} is not a field name: letters, digits, _, - and $ (dots separate nested fields)`,
    };
  }
  return { api, field };
}

function readValue(right: string, op: ConditionOperator): { value: ConditionValue } | { error: string } {
  const value = literal(right);
  if ('error' in value) return value;
  if (op !== '==' && op !== '!=' && typeof value.value !== 'number') {
    return { error: `${op} compares numbers, got ${right.length > 60 ? `${right.slice(0, 60)}…` : right}` };
  }
  return value;
}

function literal(text: string): { value: ConditionValue } | { error: string } {
  if (text === '') return { error: 'no value after the operator: e.g. "yes", 3 or true' };
  const quote = text[0];
  if (quote === '"') {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'string') return { value };
    } catch {
      // Reported below.
    }
    return { error: `${show(text)} is not one quoted text: "…" (with \\" for a quote inside)` };
  }
  if (quote === "'") {
    const inner = text.slice(1, -1);
    if (text.length >= 2 && text.endsWith("'") && !inner.includes("'")) return { value: inner };
    return { error: `${show(text)} is not one quoted text: '…'` };
  }
  if (NUMBER.test(text)) return { value: Number(text) };
  const word = text.toLowerCase();
  if (word === 'true') return { value: true };
  if (word === 'false') return { value: false };
  if (word === 'null' || word === 'none') return { value: null };
  return {
    error: `${show(text)} is not a value: quote text ("${text.replace(/"/g, '')}"), or write a number, true, false or null`,
  };
}

function show(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
