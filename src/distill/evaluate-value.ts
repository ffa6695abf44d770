/**
 * Values of an executable workflow: `{% expr %}` strings are JSONata (the `jsonata` package, loaded on first use)
 * evaluated against `{ inputs, vars }`; objects and arrays are evaluated member by member; anything else is a
 * literal. Compiled expressions are cached per text, value plans per value object; plain paths (`vars.x.y`), and
 * arithmetic and comparisons over them, skip JSONata's evaluator when the answer is certainly the same
 * (fast-expression.ts).
 */
import { WeftError } from '../errors.js';
import { type FastExpression, fastExpression, NOT_FAST } from './fast-expression.js';
import { LinearRegex } from './linear-regex.js';
import { expressionOf } from './workflow.js';

type Compiled = { evaluate(input: unknown): Promise<unknown>; ast(): unknown };
type JsonataFactory = (
  expression: string,
  options?: { timeout?: number; stack?: number; sequence?: number; RegexEngine?: typeof LinearRegex },
) => Compiled;

/**
 * How long one expression may evaluate, and how deep. JSONata evaluates through promises that are already
 * resolved, so a never-ending expression (`$f := function($n){ $f($n) }`) starves the event loop: no timer, no
 * signal handler, no other case runs again. Its own guardrails are checked between evaluation steps only: one long
 * step (a sort of millions, a huge range) runs past them. The hard limit is the isolated run
 * (run-workflow-isolated.ts), which stops the worker thread; this one is the in-process soft limit.
 */
export const DEFAULT_EXPRESSION_TIME_LIMIT_MS = 2_000;
/** JSONata's evaluation depth: about 3,000 levels of a non-tail-recursive function. */
const EXPRESSION_DEPTH_LIMIT = 10_000;
/**
 * Items one JSONata sequence may hold (a range, a path's results, `$append`): JSONata refuses more before it
 * allocates them. In a worker thread a single allocation far past the heap limit (a range of ten million, the
 * JSONata default, is 80 MB at once) ends the whole process instead of the worker; a million is 8 MB, which Node's
 * leeway at the limit still covers, so such a case fails alone (docs/workflows.md, hard limits).
 */
const MAX_SEQUENCE_ITEMS = 1_000_000;

let factory: JsonataFactory | undefined;
const cache = new Map<string, Compiled>();
/** Expression text → its direct evaluator (fast-expression.ts), or null where JSONata must evaluate it. */
const fast = new Map<string, FastExpression | null>();

async function jsonata(): Promise<JsonataFactory> {
  factory ??= ((await import('jsonata')) as unknown as { default: JsonataFactory }).default;
  return factory;
}

/** The cache key: the limit is fixed when an expression is compiled. */
const cacheKey = (expression: string, timeLimitMs: number) =>
  timeLimitMs === DEFAULT_EXPRESSION_TIME_LIMIT_MS ? expression : `${timeLimitMs}\u0000${expression}`;

/** Compiles an expression (cached); a syntax error is a WeftError naming `where`. */
export async function compileExpression(
  expression: string,
  where: string,
  timeLimitMs: number = DEFAULT_EXPRESSION_TIME_LIMIT_MS,
): Promise<Compiled> {
  const key = cacheKey(expression, timeLimitMs);
  const hit = cache.get(key);
  if (hit) return hit;
  try {
    const compiled = (await jsonata())(expression, {
      timeout: timeLimitMs,
      stack: EXPRESSION_DEPTH_LIMIT,
      sequence: MAX_SEQUENCE_ITEMS,
      RegexEngine: LinearRegex,
    });
    if (cache.size > 10_000) cache.clear();
    cache.set(key, compiled);
    return compiled;
  } catch (error) {
    throw new WeftError('WORKFLOW', `${where}: JSONata syntax error in {% ${expression} %}: ${messageOf(error)}`, {
      location: { field: where },
    });
  }
}

export interface Scope {
  readonly inputs: unknown;
  readonly vars: Readonly<Record<string, unknown>>;
}

/** A value's evaluation, prepared once per value object (a workflow's values are the same objects for every case). */
type Plan = (scope: Scope, timeLimitMs: number) => Promise<unknown>;
const plans = new WeakMap<object, Plan>();

/**
 * Evaluates a value: an expression string, or an object/array evaluated member by member (in order), or a literal.
 * `where` names the place in errors (`node add (args)`); one value object is always evaluated at the same place.
 */
export function evaluateValue(
  value: unknown,
  scope: Scope,
  where: string,
  timeLimitMs: number = DEFAULT_EXPRESSION_TIME_LIMIT_MS,
): Promise<unknown> {
  if (typeof value === 'string') {
    const expression = expressionOf(value);
    return expression === undefined
      ? Promise.resolve(value)
      : evaluateExpression(expression, scope, where, timeLimitMs);
  }
  if (value === null || typeof value !== 'object') return Promise.resolve(value);
  let plan = plans.get(value);
  if (!plan) {
    plan = planOf(value, where);
    plans.set(value, plan);
  }
  return plan(scope, timeLimitMs);
}

function planOf(value: object, where: string): Plan {
  if (!hasExpression(value)) return async () => copyJson(value);
  if (Array.isArray(value)) {
    const items = value.map((item, index) => ({ item, where: `${where}[${index}]` }));
    return async (scope, timeLimitMs) => {
      const result: unknown[] = [];
      for (const { item, where: at } of items) result.push(await evaluateValue(item, scope, at, timeLimitMs));
      return result;
    };
  }
  const members = Object.entries(value as Record<string, unknown>).map(([key, item]) => ({
    key,
    item,
    where: `${where}.${key}`,
  }));
  return async (scope, timeLimitMs) => {
    const entries: [string, unknown][] = [];
    for (const { key, item, where: at } of members)
      entries.push([key, await evaluateValue(item, scope, at, timeLimitMs)]);
    // fromEntries: a key named `__proto__` stays a plain key.
    return Object.fromEntries(entries);
  };
}

/**
 * A value evaluated with no promise and no JSONata (fast-expression.ts): its answer, or NOT_FAST where JSONata must
 * decide (evaluateValue then gives the answer, or the error). Bounded by the value's size: it has no loop.
 */
export type DirectValue = (scope: Scope) => unknown;

/**
 * The direct evaluation of a value (an expression string, an object or array of them, a literal), built once: a
 * workflow prepares its values before its first case. Undefined when an expression in it is outside what the direct
 * evaluator covers or does not compile: evaluateValue evaluates it, or reports its error where it is met.
 */
export async function directValue(value: unknown): Promise<DirectValue | undefined> {
  if (typeof value === 'string') {
    const expression = expressionOf(value);
    return expression === undefined ? () => value : directExpression(expression);
  }
  if (value === null || typeof value !== 'object') return () => value;
  if (!hasExpression(value)) return () => copyJson(value);
  if (Array.isArray(value)) {
    const items: DirectValue[] = [];
    for (const item of value) {
      const direct = await directValue(item);
      if (!direct) return undefined;
      items.push(direct);
    }
    return (scope) => {
      const result: unknown[] = [];
      for (const item of items) {
        const answer = item(scope);
        if (answer === NOT_FAST) return NOT_FAST;
        result.push(answer);
      }
      return result;
    };
  }
  const keys: string[] = [];
  const members: DirectValue[] = [];
  for (const [key, item] of Object.entries(value)) {
    const direct = await directValue(item);
    if (!direct) return undefined;
    keys.push(key);
    members.push(direct);
  }
  return (scope) => {
    const result: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index++) {
      const answer = (members[index] as DirectValue)(scope);
      if (answer === NOT_FAST) return NOT_FAST;
      const key = keys[index] as string;
      // As fromEntries does in evaluateValue: a key named `__proto__` stays a plain key.
      if (key === '__proto__')
        Object.defineProperty(result, key, { value: answer, enumerable: true, writable: true, configurable: true });
      else result[key] = answer;
    }
    return result;
  };
}

/** The direct evaluation of an expression (the text inside `{% %}`); undefined as for directValue. */
export async function directExpression(expression: string): Promise<DirectValue | undefined> {
  let direct = fast.get(expression);
  if (direct === undefined) {
    let compiled: Compiled;
    try {
      compiled = await compileExpression(expression, 'expression');
    } catch {
      return undefined;
    }
    direct = fastExpression(compiled.ast()) ?? null;
    if (fast.size > 10_000) fast.clear();
    fast.set(expression, direct);
  }
  return direct ?? undefined;
}

/** Evaluates `expression` (the text inside `{% %}`) against the scope. */
export async function evaluateExpression(
  expression: string,
  scope: Scope,
  where: string,
  timeLimitMs: number = DEFAULT_EXPRESSION_TIME_LIMIT_MS,
): Promise<unknown> {
  const compiled =
    cache.get(cacheKey(expression, timeLimitMs)) ?? (await compileExpression(expression, where, timeLimitMs));
  let direct = fast.get(expression);
  if (direct === undefined) {
    direct = fastExpression(compiled.ast()) ?? null;
    if (fast.size > 10_000) fast.clear();
    fast.set(expression, direct);
  }
  if (direct) {
    const answer = direct(scope);
    if (answer !== NOT_FAST) return answer;
  }
  try {
    return await compiled.evaluate(scope);
  } catch (error) {
    throw new WeftError('WORKFLOW', `${where}: {% ${expression} %} failed: ${messageOf(error)}`, {
      location: { field: where },
    });
  }
}

function hasExpression(value: unknown): boolean {
  if (typeof value === 'string') return expressionOf(value) !== undefined;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(hasExpression);
}

/** A fresh copy of a literal (callers may keep or change what a case returns). */
function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyJson(item)]));
}

function messageOf(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
