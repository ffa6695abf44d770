/**
 * Drives the executor's reducer (run-state.ts) by hand, without promises: attempts settle and updates answer in an
 * order picked by the test, so property tests can explore interleavings quickly.
 */
import fc from 'fast-check';
import { workflowFromJson } from '../../src/graph/index.js';
import type { Workflow, WorkflowJson } from '../../src/graph/workflow.js';
import type { WeftEvent } from '../../src/run/events.js';
import type { AttemptOutcome } from '../../src/run/run-subtask.js';
import {
  createRunState,
  snapshot,
  step,
  type AttemptRequest,
  type InitialRun,
  type RunCommand,
  type RunConfig,
  type RunState,
} from '../../src/run/run-state.js';

/** What attempt `n` (1-based) of a subtask does; past the list, it is accepted. */
export type Fate = 'accept' | 'retry' | 'replan' | 'blocked' | 'error';

export interface Simulation {
  readonly state: RunState;
  readonly events: WeftEvent[];
  /** Every start, with the plan as it stood just before it. */
  readonly starts: { readonly request: AttemptRequest; readonly before: Workflow }[];
  readonly finished: boolean;
}

export interface SimulationOptions {
  readonly config: RunConfig;
  readonly initial: InitialRun;
  readonly fates: ReadonlyMap<string, readonly Fate[]>;
  /** Which pending piece of work finishes next (index modulo the choices), consumed in turn and cycled. */
  readonly picks: readonly number[];
  /** Stop after this many events have been logged (a crash), leaving the run unfinished. */
  readonly crashAfter?: number;
  /** Events already in the log (a resumed run appends to them). */
  readonly log?: WeftEvent[];
}

export function outcomeOf(fate: Fate | undefined, id: string, attempt: number): AttemptOutcome | Error {
  const output = `output of ${id} #${attempt}`;
  switch (fate ?? 'accept') {
    case 'accept':
      return { kind: 'verified', output, masked: false, verdict: 'accept', reason: '' };
    case 'retry':
      return { kind: 'verified', output, masked: false, verdict: 'retry', reason: 'again' };
    case 'replan':
      return { kind: 'verified', output, masked: false, verdict: 'replan', reason: 'wrong' };
    case 'blocked':
      return { kind: 'blocked', output, reason: 'stuck' };
    case 'error':
      return new Error(`attempt ${attempt} of ${id} broke`);
  }
}

export function simulate(options: SimulationOptions): Simulation {
  const events = options.log ?? [];
  const starts: { request: AttemptRequest; before: Workflow }[] = [];
  const created = createRunState(options.config, options.initial);
  const state = created.state;
  const running: AttemptRequest[] = [];
  const aborted = new Set<number>();
  let update: { sequence: number } | undefined;
  let finished = false;
  let crashed = false;
  let pick = 0;
  const log = (event: Omit<WeftEvent, 'at'>) => {
    if (options.crashAfter !== undefined && events.length >= options.crashAfter) crashed = true;
    if (!crashed) events.push({ ...event, at: events.length } as WeftEvent);
  };
  const perform = (commands: readonly RunCommand[]) => {
    for (const command of commands) {
      if (command.type === 'emit') log(command.event);
      else if (command.type === 'start-attempt') {
        starts.push({ request: command.request, before: before ?? startPlan });
        log(command.event);
        running.push(command.request);
      } else if (command.type === 'abort') for (const handle of command.handles) aborted.add(handle);
      else if (command.type === 'propose-update') update = { sequence: command.sequence };
      else if (command.type === 'finish') finished = true;
    }
  };
  // The plan a start was chosen from: the snapshot before the scheduling pass that started it.
  let before: Workflow | undefined;
  let startPlan: Workflow;
  const schedule = () => {
    startPlan = snapshot(state);
    before = startPlan;
    perform(step(state, { type: 'schedule', logPending: false }));
    before = undefined;
  };
  perform(created.commands);
  schedule();
  while (!finished && !crashed) {
    const choices = running.length + (update ? 1 : 0);
    if (choices === 0) throw new Error('the run neither finished nor has work pending');
    const chosen = (options.picks.length > 0 ? options.picks[pick++ % options.picks.length]! : 0) % choices;
    if (chosen < running.length) {
      const [request] = running.splice(chosen, 1);
      const { handle, id, attempt } = request!;
      const outcome = aborted.has(handle)
        ? new Error('aborted')
        : outcomeOf(options.fates.get(id)?.[attempt - 1], id, attempt);
      perform(
        step(
          state,
          outcome instanceof Error
            ? {
                type: 'attempt-failed',
                handle,
                error: { message: outcome.message, kind: aborted.has(handle) ? 'abort' : 'other' },
              }
            : { type: 'attempt-settled', handle, outcome },
        ),
      );
    } else {
      update = undefined;
      perform(
        step(state, {
          type: 'update-proposed',
          result: { candidates: [], proposal: undefined, outcome: 'no-change', chosenIndex: -1 },
        }),
      );
      perform(step(state, { type: 'update-ended' }));
    }
    schedule();
  }
  return { state, events, starts, finished };
}

/** A random DAG of 1–8 subtasks (each depends only on earlier ones) on two roles, with each subtask's fates. */
export const dagWithFates = fc
  .integer({ min: 1, max: 8 })
  .chain((size) =>
    fc.tuple(
      fc.tuple(
        ...Array.from({ length: size }, (_, index) =>
          fc.subarray(Array.from({ length: index }, (_, parent) => parent)),
        ),
      ),
      fc.array(
        fc.array(fc.constantFrom<Fate>('accept', 'accept', 'retry', 'replan', 'blocked', 'error'), { maxLength: 3 }),
        { minLength: size, maxLength: size },
      ),
    ),
  )
  .map(([parents, fates]) => {
    const json: WorkflowJson = {
      task: 'random',
      subtasks: parents.map((own, index) => ({
        id: `t${index}`,
        objective: `do t${index}`,
        agent: index % 2 === 0 ? 'even' : 'odd',
        dependsOn: own.map((parent) => `t${parent}`),
      })),
    };
    return { json, workflow: workflowFromJson(json), fates: new Map(fates.map((list, index) => [`t${index}`, list])) };
  });
