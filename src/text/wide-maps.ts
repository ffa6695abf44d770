/**
 * A limit on how many keys one map may hold, checked before a YAML document is composed. The yaml package checks
 * a map's keys for duplicates pair by pair, so composing a map of n keys takes n² steps: 20,000 keys take seconds,
 * the 150,000 that fit in 2 MB take minutes. Real files hold a handful of keys per map.
 */
import type { CST } from 'yaml';
import { yaml } from './yaml.js';

/**
 * Where the first map with more than `limit` keys starts (a character offset) and how many it has, or undefined.
 * Walks yaml's concrete syntax tree (built without recursion) with an explicit stack, like findDeepNesting.
 */
export function findWideMap(text: string, limit: number): { offset: number; keys: number } | undefined {
  const pending: CST.Token[] = [...new (yaml().Parser)().parse(text)].reverse();
  for (let token = pending.pop(); token; token = pending.pop()) {
    if (token.type === 'document') {
      if (token.value) pending.push(token.value);
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      const isMap = token.type === 'block-map' || (token.type === 'flow-collection' && token.start.source === '{');
      if (isMap && token.items.length > limit) return { offset: token.offset, keys: token.items.length };
      const children: CST.Token[] = [];
      for (const item of token.items) {
        if (item.key) children.push(item.key);
        if (item.value) children.push(item.value);
      }
      pending.push(...children.reverse());
    }
  }
  return undefined;
}
