import { z } from 'zod';

/**
 * A list a model writes either bare or wrapped in an object under `key` (`[...]` or `{ "steps": [...] }`): both are
 * read as the list, then checked with `list`.
 */
export function listOrWrapped<T extends z.ZodType>(key: string, list: T) {
  return z.preprocess(
    (value) =>
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Array.isArray((value as Record<string, unknown>)[key])
        ? (value as Record<string, unknown>)[key]
        : value,
    list,
  );
}
