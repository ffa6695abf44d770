/** Properties of the executor's reducer (run-state.ts), over random plans, fates and interleavings. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readyTasks, workflowFromJson } from '../../src/graph/index.js';
import { foldForResume } from '../../src/run/resume-state.js';
import { runOutcome } from '../../src/run/run-state.js';
import type { WeftEvent } from '../../src/run/events.js';
import { updatePolicy } from '../../src/run/update-policies.js';
import type { SubtaskStatus } from '../../src/graph/workflow.js';
import { run } from './execution-harness.js';
import { dagWithFates, simulate } from './reducer-harness.js';
import { testModel } from './test-model.js';

const policies = fc.constantFrom('on-failure', 'concurrent', 'after-completion', 'none');
const picks = fc.array(fc.nat({ max: 20 }), { maxLength: 30 });

function config(strategy: string, concurrency = Number.POSITIVE_INFINITY) {
  return { policy: updatePolicy(strategy), concurrency, maxAttempts: 3, maxUpdates: 50, durable: false };
}

describe('the reducer', () => {
  it('starts only subtasks readyTasks lists, and leaves none of them waiting when nothing holds them back', () => {
    fc.assert(
      fc.property(
        dagWithFates,
        picks,
        fc.constantFrom('on-failure', 'none'),
        ({ workflow, fates }, order, strategy) => {
          const run = simulate({ config: config(strategy), initial: { workflow }, fates, picks: order });
          expect(run.finished).toBe(true);
          for (const { request, before } of run.starts) expect(readyTasks(before)).toContain(request.id);
          // With no cap and no barrier, a pass starts everything that is ready: at the end nothing ready is left.
          expect(readyTasks(runOutcome(run.state).workflow)).toStrictEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never runs more than the concurrency cap at once', () => {
    fc.assert(
      fc.property(
        dagWithFates,
        picks,
        policies,
        fc.integer({ min: 1, max: 3 }),
        ({ workflow, fates }, order, strategy, cap) => {
          const run = simulate({ config: config(strategy, cap), initial: { workflow }, fates, picks: order });
          let running = 0;
          for (const event of run.events) {
            if (event.type === 'task-start') running += 1;
            if (event.type === 'task-end') running -= 1;
            expect(running).toBeLessThanOrEqual(cap);
          }
          expect(run.finished).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('resumed from its log cut at any event, a run ends in the same state as the uninterrupted run', () => {
    fc.assert(
      fc.property(
        dagWithFates,
        picks,
        picks,
        policies,
        fc.nat({ max: 10_000 }),
        ({ json, workflow, fates }, order, laterOrder, strategy, where) => {
          const header: WeftEvent[] = [
            { type: 'run-start', at: 0, runId: 'r', task: json.task, model: 'test', strategy, options: { strategy } },
            { type: 'plan-chosen', at: 0, version: 1, index: 0, workflow: json },
          ];
          const whole = simulate({
            config: config(strategy),
            initial: { workflow },
            fates,
            picks: order,
            log: [...header],
          });
          expect(whole.finished).toBe(true);
          const cut = header.length + (where % (whole.events.length - header.length + 1));
          const crashed = simulate({
            config: config(strategy),
            initial: { workflow },
            fates,
            picks: order,
            log: [...header],
            crashAfter: cut,
          });
          expect(crashed.events).toStrictEqual(whole.events.slice(0, cut));

          const folded = foldForResume(crashed.events);
          const resumed = simulate({
            config: config(strategy),
            initial: {
              workflow: workflowFromJson(folded.workflow!),
              version: folded.version,
              failures: folded.failures,
              rounds: folded.rounds,
              earlier: folded.earlier,
            },
            fates,
            picks: laterOrder,
            log: crashed.events,
          });
          expect(resumed.finished).toBe(true);
          const expected = runOutcome(whole.state);
          const actual = runOutcome(resumed.state);
          expect(actual.status).toBe(expected.status);
          expect(actual.reason).toBe(expected.reason);
          expect(actual.workflow.subtasks).toStrictEqual(expected.workflow.subtasks);
          // The resumed run's log tells the same accepted outputs as the uninterrupted one's. (Not every status: the
          // fold reads a `retry` verdict on the last attempt as 'not started', which the next run then fails.)
          const accepted = (events: WeftEvent[]) =>
            foldForResume(events)
              .workflow?.subtasks.filter((s) => s.status === 'completed')
              .map((s) => [s.id, s.output]);
          expect(accepted(resumed.events)).toStrictEqual(accepted(whole.events));
          // Every attempt is told of its earlier ones what the uninterrupted run told it, resumed or not (the fold of
          // the log gives back what the reducer held).
          const told = new Map<string, unknown>();
          for (const event of whole.events)
            if (event.type === 'task-start') told.set(`${event.taskId}#${event.attempt}`, event.feedback);
          for (const event of resumed.events) {
            if (event.type !== 'task-start') continue;
            const key = `${event.taskId}#${event.attempt}`;
            if (told.has(key)) expect([key, event.feedback]).toStrictEqual([key, told.get(key)]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('execute', () => {
  it('starts, on random plans and verdicts, only subtasks readyTasks lists at that moment', async () => {
    await fc.assert(
      fc.asyncProperty(dagWithFates, fc.integer({ min: 1, max: 4 }), async ({ json, fates }, cap) => {
        const model = testModel({
          verify: (key, attempt) => {
            const fate = fates.get(key)?.[attempt - 1] ?? 'accept';
            return { verdict: fate === 'retry' ? 'retry' : fate === 'accept' ? 'accept' : 'replan' };
          },
        });
        const { events, promise } = run(json, { model, strategy: 'none', concurrency: cap });
        // Fold statuses from the events as they come, and check each start against readyTasks then.
        const status = new Map(json.subtasks.map((s) => [s.id, 'not started' as SubtaskStatus]));
        const plan = () => ({
          subtasks: json.subtasks.map((s) => ({
            id: s.id,
            objective: s.objective,
            agent: s.agent,
            attempts: 0,
            dependsOn: s.dependsOn,
            status: status.get(s.id)!,
          })),
        });
        let seen = 0;
        const check = () => {
          for (; seen < events.length; seen++) {
            const event = events[seen] as unknown as WeftEvent;
            if (event.type === 'task-start') {
              const id = event.taskId;
              expect(readyTasks(plan())).toContain(id);
              status.set(id, 'in progress');
            } else if (event.type === 'task-verify') {
              const { taskId, verdict, attempt } = event;
              status.set(
                taskId,
                verdict === 'accept' ? 'completed' : verdict === 'retry' && attempt < 3 ? 'not started' : 'failed',
              );
            } else if (event.type === 'task-end' && event.status === 'failed') {
              status.set(event.taskId, 'failed');
            }
          }
        };
        const result = await promise;
        check();
        expect(readyTasks(plan())).toStrictEqual([]);
        expect(result.workflow.subtasks.map((s) => s.status)).toStrictEqual(json.subtasks.map((s) => status.get(s.id)));
      }),
      { numRuns: 60 },
    );
  });
});
