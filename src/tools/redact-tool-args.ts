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
