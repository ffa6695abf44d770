/**
 * No stale work after a plan change (docs/algorithms.md#plan-updates): a completed subtask that an update gives a new
 * parent runs again after it, the plan-update event says why, and a resume reads the same from the log.
 */
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import type { WeftEvent } from '../../src/run/events.js';
import { planHistory, formatPlanHistory } from '../../src/run/plan-history.js';
import { foldForResume } from '../../src/run/resume-state.js';
import { run, starts } from './execution-harness.js';
import { testModel } from './test-model.js';

const page: WorkflowJson = {
  task: 'a page',
  subtasks: [
    { id: 'header', objective: 'write the header', agent: 'w', dependsOn: [] },
    { id: 'page', objective: 'assemble the page', agent: 'w', dependsOn: ['header'] },
  ],
};

/** The inspector adds `data` and makes it header's parent; page, which failed, keeps its objective. */
function staleWorkModel() {
  return testModel({
    execute: (key, attempt, call) => {
      const prompt = call.messages.map((message) => message.content).join('\n');
      return key === 'header' && prompt.includes('the data table')
        ? `header ${attempt} built on the data`
        : `${key} ${attempt}`;
    },
    verify: (key, attempt) =>
      key === 'page' && attempt === 1
        ? { verdict: 'replan', reason: 'the header lacks the data' }
        : { verdict: 'accept' },
    update: () => ({
      subtasks: [
        { id: 'data', objective: 'gather the data', agent: 'w', dependsOn: [] },
        { id: 'header', objective: 'write the header', agent: 'w', dependsOn: ['data'] },
        { id: 'page', objective: 'assemble the page', agent: 'w', dependsOn: ['header'] },
      ],
    }),
  });
}

describe('a completed subtask whose dependencies an update changed', () => {
  it('runs again after its new parent, and the plan-update event says why', async () => {
    const model = staleWorkModel();
    const dataModel = {
      ...model,
      generate: (call: Parameters<typeof model.generate>[0], signal?: AbortSignal) =>
        call.tag?.purpose === 'execute' && call.tag.key === 'data'
          ? Promise.resolve({ text: 'the data table', usage: { inputTokens: 1, outputTokens: 1 }, model: 'test' })
          : model.generate(call, signal),
    };
    const { events, promise } = run(page, { model: dataModel });
    const result = await promise;
    expect(result.status).toBe('completed');
    // header ran before data existed, then once more after data was accepted, reading it.
    expect(starts(events, 'header')).toHaveLength(2);
    const at = (type: string, id: string, attempt: number) =>
      events.findIndex((e) => {
        const event = e as { type: string; taskId?: string; attempt?: number };
        return event.type === type && event.taskId === id && event.attempt === attempt;
      });
    const dataEnd = at('task-end', 'data', 1);
    const secondHeader = at('task-start', 'header', 2);
    expect(dataEnd).toBeGreaterThan(-1);
    expect(secondHeader).toBeGreaterThan(dataEnd);
    expect(result.workflow.subtasks.find((s) => s.id === 'header')?.output).toBe('header 2 built on the data');
    const update = events.find((e) => e.type === 'plan-update') as Extract<WeftEvent, { type: 'plan-update' }>;
    expect(update.discarded).toEqual([{ id: 'header', reason: 'dependencies changed: +data' }]);
    expect(update.workflow.subtasks.find((s) => s.id === 'header')).toMatchObject({ status: 'not started' });

    // The history shows the reason.
    const timed = events.map((event, at) => ({ ...event, at }) as WeftEvent);
    const text = formatPlanHistory(planHistory(timed, []));
    expect(text).toContain('⟲ header runs again: dependencies changed: +data');

    // A resume from the log cut right after the update runs header again too: its old output is not kept.
    const cut = timed.slice(0, timed.findIndex((e) => e.type === 'plan-update') + 1);
    const resumed = foldForResume(cut);
    const header = resumed.workflow?.subtasks.find((s) => s.id === 'header');
    expect(header?.status).toBe('not started');
    expect(header?.output).toBeUndefined();
  });

  it('report.md names what runs again and why, with the changed ratio of each version', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-stale-'));
    const store = await openRunStore({ home });
    try {
      const result = await runTask({
        task: page.task,
        model: staleWorkModel(),
        store,
        home,
        plan: workflowFromJson(page),
        run: { candidates: 1 },
      });
      expect(result.status).toBe('completed');
      const report = await readFile(join(result.runDir, 'report.md'), 'utf8');
      // v2 added data and rewired header: 2 of the 2 subtasks of v1.
      expect(report).toMatch(
        /- v2: page: the header lacks the data — added data; rewired header \(changed ratio 100 %\)/,
      );
      expect(report).toContain('  - header runs again: dependencies changed: +data');
      expect(report).toContain(
        'Changed: 1 of the 2 subtasks of the first plan (50 %); mean changed ratio per update: 100 %.',
      );
    } finally {
      await store.close();
    }
  });
});
