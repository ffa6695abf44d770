/**
 * Workflow values evaluated directly (evaluate-value.ts directValue: objects and arrays of simple expressions, with
 * no promise and no JSONata), as runWorkflow evaluates them at each node visit, reading the run's own variables
 * without copying them: wherever it answers, the answer must be JSONata's over a copy of the variables.
 */
import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { directValue } from '../../src/distill/evaluate-value.js';
import { NOT_FAST } from '../../src/distill/fast-expression.js';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { expression, vars } from './jsonata-arbitraries.js';

const INPUTS = { n: 7, s: 'seven' };

const key = fc.constantFrom('a', 'b', 'x', '__proto__', 'constructor', '0', '10');
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: expression.map((text) => `{% ${text} %}`), weight: 4 },
    fc.constantFrom(null, true, false, 0, -0, 2.5, '', 'text', '{ % not one %}'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** The value as JSONata gives it, member by member over the copy; throws where JSONata fails. */
async function viaJsonata(item: unknown, scope: unknown): Promise<unknown> {
  if (typeof item === 'string') {
    const match = /^\s*\{%([\s\S]*)%\}\s*$/.exec(item);
    return match ? jsonata((match[1] as string).trim()).evaluate(scope) : item;
  }
  if (item === null || typeof item !== 'object') return item;
  if (Array.isArray(item)) {
    const result: unknown[] = [];
    for (const member of item) result.push(await viaJsonata(member, scope));
    return result;
  }
  const entries: [string, unknown][] = [];
  for (const [name, member] of Object.entries(item)) entries.push([name, await viaJsonata(member, scope)]);
  return Object.fromEntries(entries);
}

/** Equal as JSON values, with -0 apart from 0, and key order and own `__proto__` keys kept. */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => same(item, b[index]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = Object.keys(a);
    if (keys.join('\u0000') !== Object.keys(b).join('\u0000')) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    return keys.every((name) => same((a as Record<string, unknown>)[name], (b as Record<string, unknown>)[name]));
  }
  return Object.is(a, b);
}

describe('direct evaluation of workflow values', () => {
  it('answers as JSONata does over a copy of the variables, reading the live ones', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(value, vars, async (item, record) => {
        // As runWorkflow keeps them: a null-prototype object it changes in place; JSONata gets a plain copy.
        const live = { inputs: INPUTS, vars: Object.assign(Object.create(null) as Record<string, unknown>, record) };
        const direct = await directValue(item);
        const answer = direct ? direct(live) : NOT_FAST;
        if (answer === NOT_FAST) return;
        answered += 1;
        const expected = await viaJsonata(item, { inputs: INPUTS, vars: { ...live.vars } });
        expect(same(answer, expected), `${JSON.stringify(item)} gave ${JSON.stringify(answer)}`).toBe(true);
      }),
      { numRuns: 1500 },
    );
    expect(answered).toBeGreaterThan(300);
  });

  it('leaves the variables object itself to JSONata, which copies it', async () => {
    const live = { inputs: INPUTS, vars: Object.assign(Object.create(null) as Record<string, unknown>, { x: 1 }) };
    expect((await directValue('{% vars %}'))?.(live)).toBe(NOT_FAST);
    expect((await directValue({ self: '{% vars %}', x: '{% vars.x %}' }))?.(live)).toBe(NOT_FAST);
    expect((await directValue({ x: '{% vars.x %}', list: ['{% vars.x + 1 %}', 'text'] }))?.(live)).toEqual({
      x: 1,
      list: [2, 'text'],
    });
    // Outside the direct evaluator, or not JSONata at all: evaluateValue decides, and reports the error.
    expect(await directValue({ x: '{% $count(vars) %}' })).toBeUndefined();
    expect(await directValue('{% vars.( %}')).toBeUndefined();
  });

  it('a workflow run ends with what JSONata gives over its variables, or fails where JSONata fails', async () => {
    await fc.assert(
      fc.asyncProperty(expression, vars, async (text, record) => {
        const workflow: ExecutableWorkflow = {
          name: 'one-expression',
          nodes: [
            { id: 'start', kind: 'start' },
            { id: 'init', kind: 'set', values: record },
            { id: 'end', kind: 'end', output: { answer: `{% ${text} %}` } },
          ],
          edges: [
            { from: 'start', to: 'init' },
            { from: 'init', to: 'end' },
          ],
        };
        let expected: { ok: true; value: unknown } | { ok: false };
        try {
          expected = { ok: true, value: await jsonata(text).evaluate({ inputs: INPUTS, vars: { ...record } }) };
        } catch {
          expected = { ok: false };
        }
        let actual: { ok: true; value: unknown } | { ok: false };
        try {
          actual = {
            ok: true,
            value: ((await runWorkflow(workflow, { input: INPUTS })).output as { answer: unknown }).answer,
          };
        } catch {
          actual = { ok: false };
        }
        expect(actual.ok, text).toBe(expected.ok);
        if (actual.ok && expected.ok) expect(same(actual.value, expected.value), text).toBe(true);
      }),
      { numRuns: 800 },
    );
  });
});
