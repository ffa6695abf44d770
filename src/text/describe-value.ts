/**
 * Words for what a value is, for messages about parsed input that has the wrong shape ("expected an array, got
 * a string"). A leaf: imports nothing from src/ but its sibling in src/text.
 */
import type { FieldPath } from './source-locator.js';

/** The value at a path into parsed input, or undefined when the path leads nowhere. */
export function valueAt(root: unknown, path: FieldPath): unknown {
  let value = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

/** `an object`, `a string`: a type name with its indefinite article. */
export function withArticle(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** What a value is, in words: `null`, `an array`, `a string`, `an object`, … */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return withArticle(typeof value);
}

/**
 * The problem when the value `found` at `path` is not of the `expected` type (e.g. zod's `expected`):
 * `missing required field "name"` when there is none, else `expected a string, got an array`.
 */
export function describeTypeMismatch(found: unknown, path: FieldPath, expected: string): string {
  if (found === undefined) return `missing required field "${String(path[path.length - 1])}"`;
  return `expected ${withArticle(expected)}, got ${describeValue(found)}`;
}
