/**
 * JSON with object keys sorted, so that two values compare by content: `{"b":1,"a":2}` and `{"a":2,"b":1}` give
 * the same text. (Worker tool schemas, the sim bot's repeat check.)
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}
