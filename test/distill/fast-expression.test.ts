import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../src/distill/evaluate-value.js';
import { fastExpression, NOT_FAST } from '../../src/distill/fast-expression.js';
import { BINARY, expression, literal, reference, vars } from './jsonata-arbitraries.js';

// The direct evaluator of arithmetic, comparisons and conditions must answer exactly as JSONata does wherever it
// answers at all, and leave everything else (errors included) to JSONata.

type Outcome = { ok: true; value: unknown } | { ok: false; message: string };

async function viaJsonata(text: string, input: unknown): Promise<Outcome> {
  try {
    return { ok: true, value: await jsonata(text).evaluate(input) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

const leaf = fc.oneof(literal, reference);

async function agrees(text: string, scopeVars: Record<string, unknown>): Promise<boolean> {
  const input = { inputs: { n: 7, s: 'seven' }, vars: scopeVars };
  const direct = fastExpression(jsonata(text).ast());
  const answer = direct ? direct(input) : NOT_FAST;
  if (answer === NOT_FAST) return false;
  const expected = await viaJsonata(text, input);
  expect(expected, text).toEqual({ ok: true, value: answer });
  // -0 and 0 print alike but are not the same number.
  if (typeof answer === 'number') expect(Object.is(answer, (expected as { value: unknown }).value), text).toBe(true);
  return true;
}

describe('the direct evaluator agrees with JSONata', () => {
  it('on every operator between two operands of random types', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(leaf, fc.constantFrom(...BINARY), leaf, vars, async (lhs, operator, rhs, scopeVars) => {
        if (await agrees(`${lhs} ${operator} ${rhs}`, scopeVars)) answered += 1;
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(400);
  });

  it('on random nested expressions over random values: the same answer where it answers', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(expression, vars, async (text, scopeVars) => {
        if (await agrees(text, scopeVars)) answered += 1;
      }),
      { numRuns: 2000 },
    );
    // The property says nothing if the evaluator never answers.
    expect(answered).toBeGreaterThan(400);
  });

  it('answers the expressions of a loop-heavy workflow and skips what it does not cover', () => {
    const input = { inputs: { n: 6 }, vars: { x: 6, steps: 2, t: 'a', list: [1, 2] } };
    const answer = (text: string) => fastExpression(jsonata(text).ast())?.(input);
    expect(answer('vars.x != 1')).toBe(true);
    expect(answer('vars.x % 2 = 0')).toBe(true);
    expect(answer('vars.steps + 1')).toBe(3);
    expect(answer('vars.x > 3 ? "big" : "small"')).toBe('big');
    expect(answer('vars.t & "b"')).toBe('ab');
    // Features it leaves to JSONata: functions, variables, predicates, singleton arrays, arrays.
    for (const text of ['$count(vars.list)', '$x', 'vars.list[0]', 'vars.x[]', 'vars.list']) {
      const direct = fastExpression(jsonata(text).ast());
      expect(direct === undefined || direct(input) === NOT_FAST, text).toBe(true);
    }
  });

  it('leaves overflow and errors to JSONata: its answer, its error with the node named', async () => {
    const scope = { inputs: {}, vars: { big: 1e308, s: 'x', n: 1 } };
    expect(fastExpression(jsonata('vars.big * 10').ast())?.(scope)).toBe(NOT_FAST);
    await expect(evaluateExpression('vars.big * 10', scope, 'node n (expr)')).resolves.toBe(
      await jsonata('vars.big * 10').evaluate(scope),
    );
    await expect(evaluateExpression('vars.s + 1', scope, 'node n (expr)')).rejects.toThrow(/node n \(expr\)/);
    await expect(evaluateExpression('vars.n + 1', scope, 'node n (expr)')).resolves.toBe(2);
  });
});
