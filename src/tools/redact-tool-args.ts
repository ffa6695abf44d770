/** How logs show tool arguments: a tool's `secretArgs` replaced by `[redacted]` (runs, sessions, traces). */
import type { Tool } from './tool.js';

export const REDACTED = '[redacted]';

/** The arguments as the log shows them: the tool's secret arguments replaced by `[redacted]`. */
export function redactToolArgs(tool: Pick<Tool, 'secretArgs'> | undefined, args: unknown): unknown {
  const secret = tool?.secretArgs;
  if (!secret || secret.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const shown: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const name of secret) if (Object.hasOwn(shown, name)) shown[name] = REDACTED;
  return shown;
}

/** Shorter secret values are not scrubbed from messages: replacing `1` would garble every one. */
const MIN_SCRUBBED_SECRET_CHARS = 4;

/**
 * The values of a call's secret arguments as they may appear in a message (a string as is, anything else as JSON),
 * for scrubbing them from a tool's error text (text/redact-url.ts scrubSecrets, with REDACTED).
 */
export function secretArgValues(tool: Pick<Tool, 'secretArgs'> | undefined, args: unknown): string[] {
  const names = tool?.secretArgs;
  if (!names || names.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  const values: string[] = [];
  for (const name of names) {
    if (!Object.hasOwn(args, name)) continue;
    const value = (args as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text !== undefined && text.length >= MIN_SCRUBBED_SECRET_CHARS) values.push(text);
  }
  return values;
}
