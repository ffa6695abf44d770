/**
 * JSON with object keys sorted at every level, so that two argument objects compare by content (`{a, b}` and
 * `{b, a}` are the same call). Used for parameter pairs in turn-level evaluation.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      item !== null && typeof item === 'object' && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
        : item,
    ) ?? 'null'
  );
}
