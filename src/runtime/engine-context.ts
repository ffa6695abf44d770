/**
 * What one engine run works with, built once and handed down: the metered model (answering from the log on a
 * resume), the budget gate on calls, tokens, cost and wall time, the deadline, the caller's cancel signal, the run's
 * clock, and `emit` into the run's durable log. The log is an interface here (runtime/ imports no engine): a run
 * passes its event log.
 */
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { anySignal } from '../llm/timeout.js';
import { budgetGate, createMeter, type Budget, type Meter, type RunBudgetGate } from './budget.js';
import { startDeadline, type Deadline } from './deadline.js';
import type { MeterEmit } from './meter-events.js';
import { meteredModel, recordRemoteCall, type MeterOptions, type RemoteCall } from './metered-model.js';

/** Where a run's events go. `emit` stamps and keeps an event and writes it soon; `sync` is the durability gate. */
export interface DurableLog<E> {
  readonly emit: (event: E) => void;
  /** Resolves once every event emitted so far is stored; rejects with the store's failure. */
  sync(): Promise<void>;
  /** True while some emitted event is not yet stored. */
  pending(): boolean;
}

/** A log the meter can write to: its `emit` takes the `model-call` and `budget-stop` events too. */
export type MeterLog = DurableLog<never> & { readonly emit: MeterEmit };

export interface EngineContextOptions<L extends MeterLog> {
  /** The model as the caller gave it; the context meters it. */
  readonly model: ChatModel;
  readonly budget: Budget;
  /** The caller's cancel. */
  readonly signal?: AbortSignal;
  /** Monotonic milliseconds (default `performance.now`). */
  readonly clock?: () => number;
  /** Run time already spent before this process (a resumed run's last event time): the clock goes on from there. */
  readonly elapsedMs?: number;
  /** What was already spent (a resumed run's calls, tokens and cost): the budget goes on from there. */
  readonly spent?: Readonly<Meter>;
  /** Recorded replies by call key (a resumed run): such calls are answered from the log, never made again. */
  readonly replay?: ReadonlyMap<string, ChatResult>;
  /** USD of one call (default free). */
  readonly costOf?: (result: ChatResult, modelId?: string) => number;
  /** How the run model's `model-call` events record tool arguments (secret ones redacted). */
  readonly redactToolArgs?: (name: string, args: unknown) => unknown;
  /** The task a call serves, for its `model-call` event and span (MeterOptions.taskOf). */
  readonly taskOf?: MeterOptions['taskOf'];
  /** Opens the run's log on the context's clock. */
  readonly openLog: (now: () => number) => L;
}

export interface EngineContext<L extends MeterLog> {
  /** The run model, metered and budgeted (and replaying on a resume). */
  readonly model: ChatModel;
  readonly budget: Budget;
  readonly meter: Meter;
  readonly gate: RunBudgetGate;
  readonly deadline: Deadline;
  /** The caller's cancel alone (the executor tells a cancel from the deadline). */
  readonly signal: AbortSignal | undefined;
  /** Either the caller's cancel or the deadline: for work that stops the same on both (planning). */
  readonly stopSignal: AbortSignal | undefined;
  /** Milliseconds of run time, rounded to a microsecond; a resumed run's clock goes on. */
  readonly now: () => number;
  readonly log: L;
  readonly emit: L['emit'];
  /** Another model (a role's), metered into the same budget and replayed the same way as the run model. */
  metered(model: ChatModel): ChatModel;
  /** Charges a call made elsewhere (a queue worker) and records it like one made here. */
  recordRemoteCall(call: RemoteCall): void;
  /** Stops the deadline's timer (the run is over). */
  close(): void;
}

export function createEngineContext<L extends MeterLog>(options: EngineContextOptions<L>): EngineContext<L> {
  const clock = options.clock ?? (() => performance.now());
  const startedAt = clock();
  const offset = options.elapsedMs ?? 0;
  const now = () => Math.round((offset + clock() - startedAt) * 1000) / 1000;
  const log = options.openLog(now);
  const emit: L['emit'] = log.emit;
  const meter = options.spent ? { ...options.spent } : createMeter();
  const { budget } = options;
  const costOf = options.costOf ?? (() => 0);
  const gate = budgetGate({ budget, meter, now, emit });
  const deadline = startDeadline(budget.maxWallMs, now(), gate);
  // The one metering setup every model of the run shares: same meter, gate, clock, prices and replay.
  const meterOptions = {
    budget,
    meter,
    now,
    costOf,
    emit,
    ...(options.replay ? { replay: options.replay } : {}),
    ...(options.taskOf ? { taskOf: options.taskOf } : {}),
  };
  const model = meteredModel(
    options.model,
    { ...meterOptions, ...(options.redactToolArgs ? { redactToolArgs: options.redactToolArgs } : {}) },
    gate,
  );
  return {
    model,
    budget,
    meter,
    gate,
    deadline,
    signal: options.signal,
    stopSignal: anySignal(options.signal, deadline.signal),
    now,
    log,
    emit,
    metered: (other) => meteredModel(other, meterOptions, gate),
    recordRemoteCall: (call) =>
      recordRemoteCall(call, { meter, costOf, emit, ...(options.taskOf ? { taskOf: options.taskOf } : {}) }),
    close: () => deadline.clear(),
  };
}
