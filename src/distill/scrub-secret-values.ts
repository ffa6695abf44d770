/**
 * A solve's secret values kept out of its trace. A tool's `secretArgs` are redacted in that call's
 * arguments, but the same value also sits in the instance's input (where the agent read it), and can come back in
 * a tool's result or error, the answer or another call's arguments: the trace is shown by `weft traces show`, sent
 * to the summarizer, and written to files. Every string holding a value the agent passed as a secret argument has
 * that value replaced by `[redacted]`, wherever in the trace it is.
 */
import { REDACTED } from '../tools/redact-tool-args.js';
import type { Tool } from '../tools/tool.js';

/** Shorter secrets are replaced only where a whole string equals them (a 2-digit PIN inside an id is not it). */
const MIN_SUBSTRING_SECRET = 4;

/** The secret argument values of one call (strings and numbers, as text), for scrubSecretValues. */
export function secretValuesOf(tool: Pick<Tool, 'secretArgs'> | undefined, args: unknown): string[] {
  const names = tool?.secretArgs;
  if (!names || names.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  const values: string[] = [];
  for (const name of names) {
    const value = (args as Record<string, unknown>)[name];
    if (typeof value === 'string' && value.trim() !== '') values.push(value);
    else if (typeof value === 'number' && Number.isFinite(value)) values.push(String(value));
  }
  return values;
}

/** `value` with every secret replaced by `[redacted]` in its strings (and a number equal to one, whole). */
export function scrubSecretValues<T>(value: T, secrets: ReadonlySet<string>): T {
  if (secrets.size === 0) return value;
  const long = [...secrets]
    .filter((secret) => secret.length >= MIN_SUBSTRING_SECRET)
    .sort((a, b) => b.length - a.length);
  const scrubString = (text: string): string => {
    if (secrets.has(text)) return REDACTED;
    let scrubbed = text;
    for (const secret of long) if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
    return scrubbed;
  };
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return scrubString(item);
    if (typeof item === 'number') return secrets.has(String(item)) ? REDACTED : item;
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      // fromEntries: a key named `__proto__` stays a plain key.
      return Object.fromEntries(Object.entries(item).map(([key, member]) => [key, walk(member)]));
    }
    return item;
  };
  return walk(value) as T;
}
