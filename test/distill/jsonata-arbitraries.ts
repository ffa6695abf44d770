/**
 * Random JSONata expressions of the kinds workflows write (paths, literals, arithmetic, comparisons, `and`/`or`, `&`,
 * conditions) and random variables for them: what the direct evaluator's property tests compare against JSONata.
 */
import fc from 'fast-check';

const NAMES = ['a', 'b', 'n', 's', 't', 'z', 'o', 'l', 'missing', 'big'] as const;

const scopeValue = fc.oneof(
  { arbitrary: fc.integer({ min: -3, max: 3 }), weight: 4 },
  { arbitrary: fc.constantFrom('a', 'b', ''), weight: 2 },
  { arbitrary: fc.boolean(), weight: 2 },
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, 2, 1e308, -1e308, 0.1, 0.2),
  fc.constantFrom('', 'a', 'b', 'ab', '10', '9', 'true'),
  fc.constantFrom(true, false, null),
  fc.constantFrom([1, 2], [], ['x'], { k: 1 }, {}),
);

/** Variables: some names always there, some missing now and then (`missing` never). */
export const vars = fc.record(
  Object.fromEntries(NAMES.filter((name) => name !== 'missing').map((name) => [name, scopeValue])),
  { requiredKeys: ['a', 'b', 'n', 's', 't'] },
);

export const literal = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 3 }).map(String), weight: 4 },
  { arbitrary: fc.constantFrom('true', 'false'), weight: 2 },
  fc.constantFrom('0.5', '1e308', '1e-7', '3', '2'),
  fc.constantFrom('"a"', '"b"', '""', '"10"'),
  fc.constantFrom('true', 'false', 'null'),
);

/** Paths into `{ inputs: { n: 7, s: 'seven' }, vars }`, the whole variables object included. */
export const reference = fc.oneof(
  fc.constantFrom(...NAMES).map((name) => `vars.${name}`),
  fc.constantFrom('inputs.n', 'inputs.s', 'inputs.none', 'vars.o.k', 'vars.l.x', 'vars', 'inputs'),
);

export const BINARY = ['+', '-', '*', '/', '%', '<', '<=', '>', '>=', '=', '!=', 'and', 'or', '&'] as const;

export const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    reference,
    tie('expr').map((inner) => `-(${inner})`),
    fc
      .tuple(tie('expr'), fc.constantFrom(...BINARY), tie('expr'))
      .map(([lhs, operator, rhs]) => `(${lhs}) ${operator} (${rhs})`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([test, then, other]) => `(${test}) ? (${then}) : (${other})`),
    fc.tuple(tie('expr'), tie('expr')).map(([test, then]) => `(${test}) ? (${then})`),
  ),
})).expr;
