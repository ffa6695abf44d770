/**
 * `weft worker --redis URL`: runs subtasks that `weft run --workers URL` puts on the queue, until SIGINT or
 * SIGTERM (running jobs finish first). Prints one line per event; with `--json`, one JSON object per line.
 */
import { loadToolsFile, runWorker, WeftError, type ToolSet, type WorkerEvent } from '../../internal.js';
import { loadContext, modelMaker } from '../context.js';
import { integerFlag } from '../flags.js';
import type { Output, Streams } from '../output.js';

export interface WorkerFlags {
  readonly redis?: string;
  readonly concurrency?: string;
  readonly model?: string;
  readonly queue?: string;
  readonly lockMs?: string;
  readonly stalledMs?: string;
  readonly home?: string;
  /** The run's tools file, for tool-using subtasks (secrets from this worker's environment). */
  readonly tools?: string;
  readonly json?: boolean;
}

export async function workerCommand(
  flags: WorkerFlags,
  output: Output,
  streams: Streams,
  signal: AbortSignal,
): Promise<number> {
  if (!flags.redis)
    throw new WeftError('BAD_INPUT', '--redis is required, e.g. --redis redis://127.0.0.1:6379', {
      location: { field: '--redis' },
    });
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 }) ?? 1;
  const lockDurationMs = integerFlag('lock-ms', flags.lockMs, { min: 1 });
  const stalledIntervalMs = integerFlag('stalled-ms', flags.stalledMs, { min: 1 });
  const { config } = await loadContext(flags);
  // A bad tools file is refused before the worker takes any job; its MCP servers stop when the worker does.
  const toolSet: ToolSet | undefined = flags.tools ? await loadToolsFile(flags.tools, { signal }) : undefined;
  // SIGINT and SIGTERM (what process managers send) reach us through `signal` (main.ts handles both).
  const stop = new AbortController();
  const onStop = () => stop.abort();
  signal.addEventListener('abort', onStop, { once: true });
  const line = (event: WorkerEvent) => {
    if (output.json) streams.stdout.write(`${JSON.stringify(event)}\n`);
    else streams.stdout.write(`${describe(event)}\n`);
  };
  try {
    const result = await runWorker({
      redisUrl: flags.redis,
      concurrency,
      signal: stop.signal,
      onEvent: line,
      createModel: modelMaker(config),
      ...(flags.model !== undefined ? { modelSpec: flags.model } : {}),
      ...(flags.queue !== undefined ? { queueName: flags.queue } : {}),
      ...(lockDurationMs !== undefined ? { lockDurationMs } : {}),
      ...(stalledIntervalMs !== undefined ? { stalledIntervalMs } : {}),
      ...(toolSet ? { tools: toolSet.tools } : {}),
    });
    output.log(`worker stopped after ${result.jobs} job(s)`);
    return 0;
  } finally {
    await toolSet?.close();
    signal.removeEventListener('abort', onStop);
  }
}

function describe(event: WorkerEvent): string {
  switch (event.type) {
    case 'worker-ready':
      return `worker ${event.worker} ready on queue ${event.queue} (concurrency ${event.concurrency})`;
    case 'job-start':
      return `job ${event.jobId} started: subtask ${event.taskId}, attempt ${event.attempt}`;
    case 'job-end':
      return `job ${event.jobId} ${event.status} in ${event.durationMs} ms, ${event.calls} call(s)${event.error ? `: ${event.error}` : ''}`;
    case 'worker-error':
      return `worker error: ${event.message}`;
    case 'worker-stop':
      return `worker stopping after ${event.jobs} job(s)`;
  }
}
