/**
 * The worker's side of tool-using subtasks: the job names its tools by declaration; the worker runs them
 * from its own tools file (`weft worker --tools FILE`, secrets in its own environment) and refuses a job whose tools
 * it lacks or whose schemas differ. Each tool call is journalled in Redis before it runs (journalKey), like the
 * run's log does in process, so a job run again after its worker died replays what is recorded and never repeats a
 * side effect that may have happened.
 */
import { canonicalJson } from '../text/canonical-json.js';
import { WeftError } from '../errors.js';
import type { ChatResult } from '../llm/chat-model.js';
import { callKey, type RemoteCall } from '../runtime/metered-model.js';
import type { AttemptTools } from '../run/run-tools.js';
import {
  attemptReplay,
  attemptToolHooks,
  type JobTools,
  type ToolEventRecord,
  type ToolReplay,
  foldToolReplay,
} from '../run/run-tools.js';
import type { Tool } from '../tools/tool.js';
import type { RedisClient } from './load-queue.js';

/** How long a job's journal is kept (as long as BullMQ keeps finished jobs). */
const JOURNAL_TTL_MS = 24 * 3600 * 1000;

/** The worker's tools for a job, in the job's order; BAD_INPUT when one is missing or declared differently. */
export function toolsForJob(job: Pick<JobTools, 'declarations'>, tools: readonly Tool[] | undefined): Tool[] {
  const byName = new Map((tools ?? []).map((tool) => [tool.name, tool]));
  return job.declarations.map((declared) => {
    const tool = byName.get(declared.name);
    if (!tool) {
      throw new WeftError(
        'BAD_INPUT',
        tools
          ? `This worker has no tool "${declared.name}" (its tools file has: ${[...byName.keys()].join(', ') || 'none'}); start it with the run's tools file`
          : `The job needs tool "${declared.name}" and this worker has no tools: start it with --tools FILE (the run's tools file)`,
        { location: { field: '--tools' } },
      );
    }
    if (canonicalJson(tool.inputSchema) !== canonicalJson(declared.inputSchema)) {
      throw new WeftError(
        'BAD_INPUT',
        `Tool "${declared.name}" of this worker has another input schema than the run's: start the worker with the same tools file`,
        { location: { field: '--tools' } },
      );
    }
    return tool;
  });
}

type JournalEntry = { readonly call: RemoteCall } | { readonly tool: ToolEventRecord };

/** A job's journal in Redis: read once when the job starts, appended to as it runs. */
export interface JobJournal {
  readonly calls: readonly RemoteCall[];
  readonly toolEvents: readonly ToolEventRecord[];
  append(entry: JournalEntry): Promise<void>;
}

export async function openJournal(redis: RedisClient, key: string): Promise<JobJournal> {
  const entries = (await redis.lrange(key, 0, -1)).map((line) => JSON.parse(line) as JournalEntry);
  return {
    calls: entries.flatMap((entry) => ('call' in entry ? [entry.call] : [])),
    toolEvents: entries.flatMap((entry) => ('tool' in entry ? [entry.tool] : [])),
    async append(entry) {
      await redis.rpush(key, JSON.stringify(entry));
      await redis.pexpire(key, JOURNAL_TTL_MS);
    },
  };
}

/** The replies a journal holds, by callKey, for the recording model's replay. */
export function journalReplies(calls: readonly RemoteCall[]): [string, ChatResult][] {
  return calls.flatMap((call) =>
    call.error === undefined && call.text !== undefined
      ? [
          [
            callKey(call.purpose, call.key, call.attempt, call.sequence),
            {
              text: call.text,
              usage: { inputTokens: call.inputTokens, outputTokens: call.outputTokens },
              model: call.model,
              ...(call.toolCalls && call.toolCalls.length > 0 ? { toolCalls: call.toolCalls } : {}),
            },
          ] as [string, ChatResult],
        ]
      : [],
  );
}

/**
 * The attempt's tools on the worker: replaying what the run's log (the job's `recorded`) and the job's journal
 * hold, journalling each call before it runs, and collecting the events for the job's result.
 */
export function workerAttemptTools(options: {
  readonly taskId: string;
  readonly attempt: number;
  readonly job: JobTools;
  readonly tools: readonly Tool[];
  readonly journal: JobJournal;
  /** Receives every event, the journal's earlier ones first. */
  readonly events: ToolEventRecord[];
  /** The run the calls are made for (`run:<runId>`), as on the coordinator. */
  readonly scope?: string;
}): AttemptTools {
  const { taskId, attempt, journal } = options;
  const fromLog = options.job.recorded ? attemptReplay(taskId, attempt, options.job.recorded) : undefined;
  const fromJournal = foldToolReplay(journal.toolEvents);
  const replay: ToolReplay = {
    results: new Map([...(fromLog?.results ?? []), ...fromJournal.results]),
    started: new Map([...(fromLog?.started ?? []), ...fromJournal.started]),
    calls: (fromLog?.calls ?? 0) + fromJournal.calls,
  };
  options.events.push(...journal.toolEvents);
  return {
    tools: options.tools,
    maxSteps: options.job.maxSteps,
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
    hooks: attemptToolHooks({
      taskId,
      attempt,
      replay,
      record: async (event) => {
        options.events.push(event);
        await journal.append({ tool: event });
      },
    }),
  };
}
