/**
 * The one order of the CLI's lists (`weft runs`, `sessions`, `traces`): newest first, `--oldest-first` to flip.
 * Timestamps are ISO 8601 (UTC), so they compare as text; equal ones keep the store's order.
 */
export function inListOrder<T extends { readonly createdAt: string }>(items: readonly T[], oldestFirst = false): T[] {
  const sorted = [...items].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  return oldestFirst ? sorted : sorted.reverse();
}

/** The flag's help, the same on each listing command. */
export const OLDEST_FIRST_HELP = 'list the oldest first (default: newest first)';
