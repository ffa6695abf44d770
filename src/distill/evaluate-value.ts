/**
 * Values of an executable workflow: `{% expr %}` strings are JSONata (the `jsonata` package, loaded on first use)
 * evaluated against `{ inputs, vars }`; objects and arrays are evaluated member by member; anything else is a
 * literal. Compiled expressions are cached per text.
 */
import { WeftError } from '../errors.js';
import { expressionOf } from './workflow.js';

type Compiled = { evaluate(input: unknown): Promise<unknown> };
type JsonataFactory = (expression: string) => Compiled;

let factory: JsonataFactory | undefined;
const cache = new Map<string, Compiled>();

async function jsonata(): Promise<JsonataFactory> {
  factory ??= ((await import('jsonata')) as unknown as { default: JsonataFactory }).default;
  return factory;
}

/** Compiles an expression (cached); a syntax error is a WeftError naming `where`. */
export async function compileExpression(expression: string, where: string): Promise<Compiled> {
  const hit = cache.get(expression);
  if (hit) return hit;
  try {
    const compiled = (await jsonata())(expression);
    if (cache.size > 10_000) cache.clear();
    cache.set(expression, compiled);
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

export async function evaluateValue(value: unknown, scope: Scope, where: string): Promise<unknown> {
  const expression = expressionOf(value);
  if (expression !== undefined) {
    const compiled = await compileExpression(expression, where);
    try {
      return await compiled.evaluate(scope);
    } catch (error) {
      throw new WeftError('WORKFLOW', `${where}: {% ${expression} %} failed: ${messageOf(error)}`, {
        location: { field: where },
      });
    }
  }
  if (Array.isArray(value)) {
    return Promise.all(value.map((item, index) => evaluateValue(item, scope, `${where}[${index}]`)));
  }
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value as Record<string, unknown>).map(
        async ([key, item]) => [key, await evaluateValue(item, scope, `${where}.${key}`)] as const,
      ),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

function messageOf(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
