/**
 * A limit on how deeply collections nest in the files Weft reads (plans, team files, config, …). Parsers and
 * validators recurse once per level, so hostile nesting (176 KB of `[[[[…`) would overflow the stack: `yaml`
 * turns that into an error only sometimes, and V8 can even abort the whole process when it compiles a regular
 * expression with the stack nearly full. Refusing deep nesting before parsing keeps every reader safe.
 * Real files nest a handful of levels; 100 leaves room for JSON Schemas and the like.
 */
import type { CST } from 'yaml';
import { yaml } from './yaml.js';

export const MAX_NESTING_DEPTH = 100;

export const nestingMessage = (limit: number = MAX_NESTING_DEPTH): string => `nested deeper than ${limit} levels`;

/**
 * Where the first collection nested deeper than `limit` starts (a character offset), or undefined. Reads the
 * YAML (or JSON, which is YAML) into yaml's concrete syntax tree, which its parser builds without recursion, and
 * walks it with an explicit stack.
 */
export function findDeepNesting(text: string, limit: number = MAX_NESTING_DEPTH): number | undefined {
  const pending: { token: CST.Token; depth: number }[] = [];
  const documents = [...new (yaml().Parser)().parse(text)];
  // Popped last-first, so pushed in reverse: the walk meets collections in source order.
  for (const token of documents.reverse()) pending.push({ token, depth: 0 });
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { token, depth } = next;
    if (token.type === 'document') {
      if (token.value) pending.push({ token: token.value, depth });
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= limit) return token.offset;
      const children: CST.Token[] = [];
      for (const item of token.items) {
        if (item.key) children.push(item.key);
        if (item.value) children.push(item.value);
      }
      for (const child of children.reverse()) pending.push({ token: child, depth: depth + 1 });
    }
  }
  return undefined;
}
