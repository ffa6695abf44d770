/**
 * A direct evaluator for the commonest JSONata expressions of workflows — plain paths, number and string literals,
 * arithmetic, comparisons, `and`/`or` and `? :` — built once from JSONata's own syntax tree. A loop-heavy workflow
 * evaluates such an expression at every node visit, and JSONata's evaluator (asynchronous at every step) costs
 * about a hundred times more than the arithmetic.
 *
 * It answers only where its answer is certainly JSONata's: operands of the types JSONata's operators take without
 * conversion (numbers for arithmetic; two numbers or two strings for an ordering; primitives for `=`; booleans for
 * `and`, `or` and a condition), paths through own properties of plain objects (`vars.item.sku`, the commonest
 * expression of all, is one). Anything else — a missing field, an
 * array (which JSONata maps over), a number that would overflow, a function — returns NOT_FAST and JSONata decides,
 * errors included. A property test checks the agreement against JSONata.
 */

/** The direct evaluator cannot vouch for the answer: ask JSONata. */
export const NOT_FAST: unique symbol = Symbol('not fast');

export type FastExpression = (input: unknown) => unknown;

interface Node {
  readonly type?: unknown;
  readonly value?: unknown;
  readonly [key: string]: unknown;
}

/** Keys a plain node of each type carries; any other key (a predicate, a stage, a focus) is a feature we skip. */
const PLAIN_KEYS: Readonly<Record<string, readonly string[]>> = {
  path: ['type', 'steps', 'position'],
  name: ['type', 'value', 'position'],
  number: ['type', 'value', 'position'],
  string: ['type', 'value', 'position'],
  value: ['type', 'value', 'position'],
  unary: ['type', 'value', 'position', 'expression'],
  binary: ['type', 'value', 'position', 'lhs', 'rhs'],
  condition: ['type', 'position', 'condition', 'then', 'else'],
  block: ['type', 'position', 'expressions'],
};

/** The direct evaluator for a JSONata syntax tree, or undefined when the tree uses anything it does not cover. */
export function fastExpression(ast: unknown): FastExpression | undefined {
  return build(ast);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function plain(node: Node): boolean {
  const allowed = typeof node.type === 'string' ? PLAIN_KEYS[node.type] : undefined;
  return allowed !== undefined && Object.keys(node).every((key) => allowed.includes(key));
}

function build(node: unknown): FastExpression | undefined {
  if (!isNode(node) || !plain(node)) return undefined;
  switch (node.type) {
    case 'number':
      return typeof node.value === 'number' && Number.isFinite(node.value) ? constant(node.value) : undefined;
    case 'string':
      return typeof node.value === 'string' ? constant(node.value) : undefined;
    case 'value':
      return node.value === true || node.value === false || node.value === null ? constant(node.value) : undefined;
    case 'path':
      return path(node.steps);
    case 'block':
      return Array.isArray(node.expressions) && node.expressions.length === 1 ? build(node.expressions[0]) : undefined;
    case 'unary':
      return node.value === '-' ? negate(build(node.expression)) : undefined;
    case 'binary':
      return binary(node.value, build(node.lhs), build(node.rhs));
    case 'condition':
      return condition(build(node.condition), build(node.then), node.else === undefined ? null : build(node.else));
    default:
      return undefined;
  }
}

function constant(value: unknown): FastExpression {
  return () => value;
}

function path(steps: unknown): FastExpression | undefined {
  if (!Array.isArray(steps) || steps.length === 0) return undefined;
  const names: string[] = [];
  for (const step of steps) {
    if (!isNode(step) || step.type !== 'name' || !plain(step) || typeof step.value !== 'string') return undefined;
    names.push(step.value);
  }
  return (input) => {
    let current = input;
    for (const name of names) {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) return NOT_FAST;
      if (!Object.hasOwn(current, name)) return NOT_FAST;
      current = (current as Record<string, unknown>)[name];
    }
    // JSONata returns arrays as sequences and treats functions its own way; a plain object it returns as it is. Any
    // other object (a workflow run's own variables, which it must copy first) is left to it.
    if (current === undefined || typeof current === 'function' || Array.isArray(current)) return NOT_FAST;
    if (typeof current === 'object' && current !== null && Object.getPrototypeOf(current) !== Object.prototype)
      return NOT_FAST;
    return current;
  };
}

function negate(operand: FastExpression | undefined): FastExpression | undefined {
  if (!operand) return undefined;
  return (input) => {
    const value = operand(input);
    return typeof value === 'number' ? -value : NOT_FAST;
  };
}

const ARITHMETIC: Readonly<Record<string, (a: number, b: number) => number>> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
};

function binary(
  operator: unknown,
  lhs: FastExpression | undefined,
  rhs: FastExpression | undefined,
): FastExpression | undefined {
  if (typeof operator !== 'string' || !lhs || !rhs) return undefined;
  const arithmetic = ARITHMETIC[operator];
  if (arithmetic)
    return (input) => {
      const a = lhs(input);
      if (typeof a !== 'number') return NOT_FAST;
      const b = rhs(input);
      if (typeof b !== 'number') return NOT_FAST;
      const result = arithmetic(a, b);
      // JSONata refuses a result out of range (D1001); let it say so.
      return Number.isFinite(result) ? result : NOT_FAST;
    };
  switch (operator) {
    case '<':
    case '<=':
    case '>':
    case '>=':
      return ordering(operator, lhs, rhs);
    case '=':
    case '!=':
      return (input) => {
        const a = lhs(input);
        if (!isPrimitive(a)) return NOT_FAST;
        const b = rhs(input);
        if (!isPrimitive(b)) return NOT_FAST;
        return operator === '=' ? a === b : a !== b;
      };
    case 'and':
    case 'or':
      // JSONata evaluates the right side only when the left does not decide.
      return (input) => {
        const a = lhs(input);
        if (typeof a !== 'boolean') return NOT_FAST;
        if (operator === 'and' ? !a : a) return a;
        const b = rhs(input);
        return typeof b === 'boolean' ? b : NOT_FAST;
      };
    case '&':
      return (input) => {
        const a = lhs(input);
        if (typeof a !== 'string') return NOT_FAST;
        const b = rhs(input);
        return typeof b === 'string' ? a + b : NOT_FAST;
      };
    default:
      return undefined;
  }
}

function ordering(operator: '<' | '<=' | '>' | '>=', lhs: FastExpression, rhs: FastExpression): FastExpression {
  return (input) => {
    const a = lhs(input);
    if (typeof a !== 'number' && typeof a !== 'string') return NOT_FAST;
    const b = rhs(input);
    if (typeof b !== typeof a) return NOT_FAST;
    const x = a as number;
    const y = b as number;
    switch (operator) {
      case '<':
        return x < y;
      case '<=':
        return x <= y;
      case '>':
        return x > y;
      default:
        return x >= y;
    }
  };
}

function condition(
  test: FastExpression | undefined,
  then: FastExpression | undefined,
  otherwise: FastExpression | undefined | null,
): FastExpression | undefined {
  if (!test || !then || otherwise === undefined) return undefined;
  return (input) => {
    const decided = test(input);
    if (typeof decided !== 'boolean') return NOT_FAST;
    if (decided) return then(input);
    // No else branch: JSONata gives nothing, which a workflow value cannot hold; let it decide.
    return otherwise ? otherwise(input) : NOT_FAST;
  };
}

function isPrimitive(value: unknown): value is number | string | boolean | null {
  return value === null || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean';
}
