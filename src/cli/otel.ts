/**
 * `--otel [URL]` and `--otel-content` on the commands that run models: register the OpenTelemetry SDK before the
 * command runs (or when OTEL_EXPORTER_OTLP_ENDPOINT is set), and flush it before the process exits, with a bounded
 * wait, whether the command succeeded, failed or was cancelled. The SDK loads only when tracing is asked for.
 */
import { WeftError } from '../errors.js';
import type { Output } from './output.js';

/** The commands that trace, by their path (`team eval`); the others ignore the OTLP environment. */
export const TRACED_COMMANDS: readonly string[] = [
  'run',
  'resume',
  'plan',
  'mcp',
  'solve',
  'distill',
  'chat',
  'team',
  'team run',
  'team optimize',
  'team eval',
  'simulate',
  'dialog eval',
  'worker',
  'distill eval',
  'bench worfbench',
];

export interface OtelFlags {
  /** `--otel` alone is `''` (normalizeOtelFlag): the endpoint from the environment or the default. */
  readonly otel?: string | boolean;
  readonly otelContent?: boolean;
}

/** What `main` calls once the command is over. */
export type StopCliTelemetry = () => Promise<void>;

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * `--otel` takes an optional URL, and `weft run --otel "a task"` must not read the task as one: a bare `--otel`
 * not followed by a URL becomes `--otel=` (no value).
 */
export function normalizeOtelFlag(argv: readonly string[]): string[] {
  const result: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      result.push(...argv.slice(i));
      break;
    }
    if (arg === '--otel' && !(i + 1 < argv.length && URL_LIKE.test(argv[i + 1]!))) result.push('--otel=');
    else result.push(arg);
  }
  return result;
}

function envEndpoint(): boolean {
  if (/^true$/i.test(process.env.OTEL_SDK_DISABLED?.trim() ?? '')) return false;
  return [process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, process.env.OTEL_EXPORTER_OTLP_ENDPOINT].some(
    (value) => value !== undefined && value.trim() !== '',
  );
}

/** Starts tracing for `command` when asked to; returns how to stop it, or undefined when not tracing. */
export async function startCliTelemetry(
  command: string,
  flags: OtelFlags,
  output: Output,
): Promise<StopCliTelemetry | undefined> {
  if (!TRACED_COMMANDS.includes(command)) return undefined;
  const asked = flags.otel !== undefined && flags.otel !== false;
  if (!asked && !envEndpoint()) {
    if (flags.otelContent)
      throw new WeftError(
        'BAD_INPUT',
        '--otel-content records content in traces: it needs --otel (or OTEL_EXPORTER_OTLP_ENDPOINT)',
        {
          location: { field: '--otel-content' },
        },
      );
    return undefined;
  }
  const { startTelemetry } = await import('../internal.js');
  const endpoint = typeof flags.otel === 'string' && flags.otel !== '' ? flags.otel : undefined;
  const handle = await startTelemetry({
    ...(endpoint !== undefined ? { endpoint } : {}),
    field: '--otel',
    ...(flags.otelContent ? { content: true } : {}),
  });
  output.log(`tracing to ${handle.endpoint}${flags.otelContent ? ' (with message content)' : ''}`);
  return async () => {
    const result = await handle.stop();
    if (result.failed > 0 || result.error !== undefined)
      output.log(
        `weft: traces not delivered to ${handle.endpoint}${result.failed > 0 ? ` (${result.failed} spans)` : ''}: ${result.error ?? 'export failed'}`,
      );
  };
}
