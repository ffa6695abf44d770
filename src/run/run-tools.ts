/**
 * Tools inside a run: which tools a role's agent gets, and the tool loop's hooks that make each call an
 * event in the run's log. A call's `tool-call` event is durable before the tool runs (write-ahead), and its
 * `tool-result` follows; a resume replays recorded results, re-issues a started call without a result only for an
 * idempotent tool, and otherwise fails the subtask rather than risk a side effect twice. `--max-tool-calls` is
 * checked before each call.
 */
import { WeftError } from '../errors.js';
import type { Role, Workflow } from '../graph/workflow.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { REDACTED, redactToolArgs } from '../tools/redact-tool-args.js';
import type { ToolLoopCall, ToolLoopHooks, ToolLoopOutcome } from '../tools/tool-loop.js';
import type { EventLog } from './event-log.js';
import type { WeftEvent } from './events.js';

export { REDACTED, redactToolArgs } from '../tools/redact-tool-args.js';

/** What the log of an earlier part of the run says about its tool calls. */
export interface ToolReplay {
  /** Outcomes by `toolCallKey`. */
  readonly results: ReadonlyMap<string, ToolLoopOutcome>;
  /** Calls whose start is recorded, by `toolCallKey`, with the tool's name. */
  readonly started: ReadonlyMap<string, string>;
  /** Tool calls started so far (what the tool-call budget has spent). */
  readonly calls: number;
}

export function toolCallKey(taskId: string, attempt: number, sequence: number): string {
  return JSON.stringify([taskId, attempt, sequence]);
}

/** Folds the tool events of a log (pure): what a resume replays. */
export function foldToolReplay(events: Iterable<WeftEvent | ToolEventRecord>): ToolReplay {
  const results = new Map<string, ToolLoopOutcome>();
  const started = new Map<string, string>();
  let calls = 0;
  for (const event of events) {
    if (event.type === 'tool-call') {
      calls += 1;
      started.set(toolCallKey(event.taskId, event.attempt, event.sequence), event.name);
    } else if (event.type === 'tool-result') {
      results.set(
        toolCallKey(event.taskId, event.attempt, event.sequence),
        event.ok
          ? {
              ok: true,
              result: (event.result ?? null) as JsonValue,
              ...(event.truncated ? { truncated: true as const } : {}),
              durationMs: event.durationMs,
            }
          : { ok: false, error: event.error ?? 'failed', code: event.code ?? 'TOOL', durationMs: event.durationMs },
      );
    }
  }
  return { results, started, calls };
}

/** `redactToolArgs` for a model's tool calls, which name their tool: what the log and a job's journal keep. */
export function toolArgsRedactor(tools: readonly Tool[]): (name: string, args: unknown) => unknown {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (name, args) => redactToolArgs(byName.get(name), args);
}

/** Whether arguments carry a value the log had to redact (such a call cannot be re-issued from the log). */
function hasSecret(tool: Tool | undefined, args: unknown): boolean {
  return redactToolArgs(tool, args) !== args;
}

function carriesRedacted(tool: Tool | undefined, args: unknown): boolean {
  if (!tool?.secretArgs || args === null || typeof args !== 'object') return false;
  return tool.secretArgs.some((name) => (args as Record<string, unknown>)[name] === REDACTED);
}

/**
 * Every tool a plan's roles name exists among the run's tools: an unknown one is the user's input error, reported
 * before the run starts, naming the plan file and the field.
 */
export function checkRoleTools(
  workflow: Pick<Workflow, 'roles'>,
  tools: readonly Pick<Tool, 'name'>[],
  file?: string,
): void {
  const known = new Set(tools.map((tool) => tool.name));
  const listing =
    known.size > 0 ? `the run's tools are: ${[...known].join(', ')}` : 'the run has no tools (--tools FILE)';
  for (const role of workflow.roles) {
    (role.tools ?? []).forEach((name, index) => {
      if (known.has(name)) return;
      throw new WeftError('BAD_INPUT', `Role "${role.name}" names unknown tool "${name}"; ${listing}`, {
        location: { ...(file !== undefined ? { file } : {}), field: `roles.${role.name}.tools[${index}]` },
      });
    });
  }
}

export interface RunToolsOptions {
  readonly tools: readonly Tool[];
  /** Model calls per tool loop that may ask for tools. */
  readonly maxSteps: number;
  /** Tool calls the whole run may make (`--max-tool-calls`). */
  readonly maxToolCalls?: number;
  readonly emit: EventLog['emit'];
  /** Makes what was emitted durable: awaited after a call's start is emitted, before the tool runs. */
  readonly durability: { sync(): Promise<void> };
  /** Reports a spent tool-call budget (the run's `budget-stop` event) and returns the BUDGET error to throw. */
  readonly refuse: (exceeded: string) => WeftError;
  readonly replay?: ToolReplay;
  /** What every call says it is made for (`run:<runId>`): `ToolCallContext.scope`. */
  readonly scope?: string;
}

/** What one attempt of a tool-using subtask gets: its tools, the step limit and the hooks that log each call. */
export interface AttemptTools {
  readonly tools: readonly Tool[];
  readonly maxSteps: number;
  readonly hooks: ToolLoopHooks;
  /** The run the calls are made for (`run:<runId>`), passed to each tool: `ToolCallContext.scope`. */
  readonly scope?: string;
  /** For attempts run elsewhere (workers/): the job's part, and how to record what the worker reports. */
  readonly job?: JobTools;
  readonly recordRemote?: (events: readonly ToolEventRecord[]) => void;
  /**
   * Throws the BUDGET error when the run's tool calls are spent: checked before an attempt is sent elsewhere, where
   * its calls cannot be gated one by one (like model calls on workers).
   */
  readonly admitRemote?: () => void;
}

export class RunTools {
  private readonly byName: ReadonlyMap<string, Tool>;
  private calls: number;

  constructor(private readonly options: RunToolsOptions) {
    this.byName = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.calls = options.replay?.calls ?? 0;
  }

  get tools(): readonly Tool[] {
    return this.options.tools;
  }

  /** Tool calls started in the run so far (this process and the ones before it). */
  get spent(): number {
    return this.calls;
  }

  /** The tools of a role's attempt, or undefined for a role without tools. */
  forAttempt(role: Role, taskId: string, attempt: number): AttemptTools | undefined {
    if (!role.tools || role.tools.length === 0) return undefined;
    const tools = role.tools.map((name) => {
      const tool = this.byName.get(name);
      // A plan's roles are checked when the run starts; one an update introduced can still name a missing tool.
      if (!tool)
        throw new WeftError('BAD_INPUT', `Role "${role.name}" names unknown tool "${name}"`, {
          location: { field: `roles.${role.name}.tools` },
        });
      return tool;
    });
    return {
      tools,
      maxSteps: this.options.maxSteps,
      hooks: this.hooks(taskId, attempt),
      ...(this.options.scope !== undefined ? { scope: this.options.scope } : {}),
      job: this.jobOf(tools, taskId, attempt),
      recordRemote: (events) => this.recordRemote(events),
      admitRemote: () => this.checkBudget(),
    };
  }

  private hooks(taskId: string, attempt: number): ToolLoopHooks {
    return attemptToolHooks({
      taskId,
      attempt,
      ...(this.options.replay ? { replay: this.options.replay } : {}),
      admit: () => this.admit(),
      record: async (event) => {
        this.options.emit(event);
        if (event.type === 'tool-call') await this.options.durability.sync();
      },
    });
  }

  private admit(): void {
    this.checkBudget();
    this.calls += 1;
  }

  private checkBudget(): void {
    const max = this.options.maxToolCalls;
    if (max !== undefined && this.calls >= max) throw this.options.refuse(`tool call budget of ${max} reached`);
  }

  /**
   * Records tool events an attempt run elsewhere (a queue worker) reports with its result, skipping those the log
   * already has (a job that finished before a resume reports them again); they count in the tool-call budget.
   */
  recordRemote(events: readonly ToolEventRecord[]): void {
    for (const event of events) {
      const key = toolCallKey(event.taskId, event.attempt, event.sequence);
      const known =
        event.type === 'tool-call' ? this.options.replay?.started.has(key) : this.options.replay?.results.has(key);
      if (known) continue;
      if (event.type === 'tool-call') this.calls += 1;
      this.options.emit(event);
    }
  }

  /** What an attempt's job carries so that a worker can run its tool loop: declarations, limits, what is recorded. */
  private jobOf(tools: readonly Tool[], taskId: string, attempt: number): JobTools {
    const replay = this.options.replay;
    const results: [number, ToolLoopOutcome][] = [];
    const started: [number, string][] = [];
    if (replay) {
      for (const [key, name] of replay.started) {
        const [id, number, sequence] = JSON.parse(key) as [string, number, number];
        if (id === taskId && number === attempt) started.push([sequence, name]);
      }
      for (const [key, outcome] of replay.results) {
        const [id, number, sequence] = JSON.parse(key) as [string, number, number];
        if (id === taskId && number === attempt) results.push([sequence, outcome]);
      }
    }
    return {
      maxSteps: this.options.maxSteps,
      declarations: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.idempotent ? { idempotent: true } : {}),
      })),
      ...(results.length > 0 || started.length > 0 ? { recorded: { results, started } } : {}),
    };
  }
}

/** A tool event as an attempt records it (unstamped). */
export type ToolEventRecord =
  Extract<WeftEvent, { type: 'tool-call' | 'tool-result' }> extends infer E
    ? E extends WeftEvent
      ? Omit<E, 'at'>
      : never
    : never;

/** The tools of a job (workers/): what the worker must have, with the same schemas. No secrets, no code. */
export interface JobTools {
  readonly maxSteps: number;
  readonly declarations: readonly {
    readonly name: string;
    readonly description: string;
    readonly inputSchema: Readonly<Record<string, unknown>>;
    readonly idempotent?: boolean;
  }[];
  /** What the run's log holds for this attempt's tool calls, by sequence. */
  readonly recorded?: {
    readonly results: readonly (readonly [number, ToolLoopOutcome])[];
    readonly started: readonly (readonly [number, string])[];
  };
}

/** The replay of one attempt's recorded tool calls, keyed as a run's. */
export function attemptReplay(
  taskId: string,
  attempt: number,
  recorded: NonNullable<JobTools['recorded']>,
): ToolReplay {
  return {
    results: new Map(recorded.results.map(([sequence, outcome]) => [toolCallKey(taskId, attempt, sequence), outcome])),
    started: new Map(recorded.started.map(([sequence, name]) => [toolCallKey(taskId, attempt, sequence), name])),
    calls: recorded.started.length,
  };
}

export interface AttemptToolHooksOptions {
  readonly taskId: string;
  readonly attempt: number;
  /** What is recorded of earlier tries of this attempt (a resume, a job run again). */
  readonly replay?: ToolReplay;
  /** Throws to refuse a call (a budget). */
  readonly admit?: () => void;
  /** Records an event; awaited, and for a `tool-call` it must be durable when it resolves (write-ahead). */
  readonly record: (event: ToolEventRecord) => Promise<void>;
}

/**
 * The tool loop's hooks for one subtask attempt, wherever it runs: replay what is recorded, re-issue a started call
 * without result only when the tool is idempotent, record each call before it runs and its outcome after.
 */
export function attemptToolHooks(options: AttemptToolHooksOptions): ToolLoopHooks {
  const { taskId, attempt, replay } = options;
  const named = (call: ToolLoopCall) =>
    `tool call ${call.name} (#${call.sequence + 1} of subtask ${taskId}, attempt ${attempt})`;
  return {
    replay: (call) => {
      const key = toolCallKey(taskId, attempt, call.sequence);
      const recorded = replay?.results.get(key);
      if (recorded) return recorded;
      if (!replay?.started.has(key)) {
        // A replayed model call carries its tool calls as the log has them: secret values are gone.
        if (replay && carriesRedacted(call.tool, call.args))
          throw new WeftError(
            'TOOL',
            `${named(call)} cannot be made from the log: its secret arguments are not recorded`,
          );
        return undefined;
      }
      // Started, with no result on record: the process died during the call, which may have had its effect.
      if (call.tool?.idempotent && !hasSecret(call.tool, call.args)) return undefined;
      throw new WeftError(
        'TOOL',
        `${named(call)} may have run; not repeated${call.tool?.idempotent ? ' (its secret arguments are not in the log)' : ''}`,
      );
    },
    ...(options.admit ? { admit: options.admit } : {}),
    onCallStart: (call) => options.record(toolCallRecord(taskId, attempt, call)),
    onCallEnd: (call, outcome) => options.record(toolResultRecord(taskId, attempt, call, outcome)),
  };
}

/** The `tool-call` record of a call, as the log keeps it: its secret arguments redacted. */
export function toolCallRecord(
  taskId: string,
  attempt: number,
  call: ToolLoopCall,
): Extract<ToolEventRecord, { type: 'tool-call' }> {
  return {
    type: 'tool-call',
    taskId,
    attempt,
    sequence: call.sequence,
    step: call.step,
    callId: call.id,
    name: call.name,
    args: redactToolArgs(call.tool, call.args),
    ...(call.tool?.idempotent ? { idempotent: true } : {}),
    ...(call.tool?.simulated ? { simulated: true } : {}),
  };
}

/** The `tool-result` record of a call's outcome. */
export function toolResultRecord(
  taskId: string,
  attempt: number,
  call: Pick<ToolLoopCall, 'sequence' | 'name'>,
  outcome: ToolLoopOutcome,
): Extract<ToolEventRecord, { type: 'tool-result' }> {
  const base = { type: 'tool-result' as const, taskId, attempt, sequence: call.sequence, name: call.name };
  return outcome.ok
    ? {
        ...base,
        ok: true,
        result: outcome.result,
        ...(outcome.truncated ? { truncated: true as const } : {}),
        durationMs: outcome.durationMs,
      }
    : { ...base, ok: false, error: outcome.error, code: outcome.code, durationMs: outcome.durationMs };
}
