import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../src/distill/evaluate-value.js';

// The fast path for plain paths (`vars.a.b`) must answer exactly as JSONata does, on any data.
const KEYS = [
  'a',
  'b',
  'x',
  '_1',
  'item',
  'length',
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'and',
  'function',
  'null',
  'true',
];
const key = fc.constantFrom(...KEYS);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -0, 1, 2.5, '', 'text', '1'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

async function viaJsonata(expression: string, scope: unknown): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: await jsonata(expression).evaluate(scope) };
  } catch {
    return { ok: false };
  }
}

async function viaWeft(expression: string, scope: { inputs: unknown; vars: Record<string, unknown> }) {
  try {
    return { ok: true as const, value: await evaluateExpression(expression, scope, 'test') };
  } catch {
    return { ok: false as const };
  }
}

/** JSON-ish comparison that keeps undefined and JSONata's sequence arrays apart from nothing. */
function shape(value: unknown): unknown {
  return value === undefined ? '<undefined>' : JSON.parse(JSON.stringify(value) ?? 'null');
}

describe('the plain-path fast path agrees with JSONata', () => {
  it('on random paths over random values (missing keys, arrays, numbers, null, prototype names)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('inputs', 'vars'),
        fc.array(key, { minLength: 0, maxLength: 4 }),
        fc.dictionary(key, json, { maxKeys: 4 }),
        fc.dictionary(key, json, { maxKeys: 4 }),
        async (root, steps, inputs, vars) => {
          const expression = [root, ...steps].join('.');
          const scope = { inputs, vars };
          const expected = await viaJsonata(expression, scope);
          const actual = await viaWeft(expression, scope);
          expect(actual.ok).toBe(expected.ok);
          if (expected.ok && actual.ok) {
            expect(shape(actual.value)).toEqual(shape(expected.value));
            expect(actual.value).toEqual(expected.value);
            if (typeof expected.value !== 'object') expect(Object.is(actual.value, expected.value)).toBe(true);
          }
        },
      ),
      { numRuns: 600 },
    );
  });
});
