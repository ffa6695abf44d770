/**
 * Retries that learn (docs/algorithms.md#retries-that-learn): a retried attempt is told the verifier's reason and its
 * earlier output, in a tag of its own; the log records what it was told, and a resumed run tells it the same.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { scriptedModel, type ScriptedModel } from '../../src/llm/scripted-model.js';
import type { WeftEvent } from '../../src/run/events.js';
import { foldForResume } from '../../src/run/resume-state.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { EventRecord } from '../../src/store/run-store.js';
import { diamond, run } from './execution-harness.js';
import { testModel } from './test-model.js';
import { runEvents } from '../../src/run/run-events.js';

const REASON = 'the haiku has four lines, not three';
const FIRST_DRAFT = 'draft one: autumn moon / over the quiet pond / a frog / jumps';

const PLAN: WorkflowJson = {
  task: 'write a haiku and illustrate it',
  subtasks: [
    { id: 'poem', objective: 'write the haiku', agent: 'poet', dependsOn: [], outputFormat: 'plain text, 3 lines' },
    { id: 'art', objective: 'describe an illustration of the haiku', agent: 'artist', dependsOn: ['poem'] },
  ],
};

/** A scripted model: the poem's first attempt is sent back with REASON, everything else is accepted. */
function poetModel(): ScriptedModel {
  return scriptedModel((call: ChatCall) => {
    const { purpose, key, attempt } = call.tag ?? { purpose: 'other' };
    if (purpose === 'execute') return key === 'poem' && attempt === 1 ? FIRST_DRAFT : `${key} attempt ${attempt}`;
    if (purpose === 'verify')
      return JSON.stringify(
        key === 'poem' && attempt === 1 ? { verdict: 'retry', reason: REASON } : { verdict: 'accept', reason: 'fine' },
      );
    return '{}';
  });
}

function executePrompts(model: ScriptedModel, key: string): Map<number, string> {
  return new Map(
    model.calls
      .filter((call) => call.tag?.purpose === 'execute' && call.tag.key === key)
      .map((call) => [call.tag!.attempt!, call.messages.at(-1)!.content]),
  );
}

function section(prompt: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(prompt);
  return match?.[1];
}

async function storedEvents(home: string, runId: string): Promise<WeftEvent[]> {
  const store = await openRunStore({ home });
  try {
    return await runEvents(store, runId);
  } finally {
    await store.close();
  }
}

describe('a retried attempt', () => {
  it("is told the verifier's reason and its earlier output, outside <objective>, and the log records it", async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-retry-'));
    const store = await openRunStore({ home });
    const model = poetModel();
    const result = await runTask({ task: PLAN.task, plan: workflowFromJson(PLAN), model, store, home, runId: 'r' });
    await store.close();
    expect(result.status).toBe('completed');

    const prompts = executePrompts(model, 'poem');
    const first = prompts.get(1)!;
    const retry = prompts.get(2)!;
    expect(first).not.toContain('<previous-attempts>');
    const previous = section(retry, 'previous-attempts')!;
    expect(previous).toContain(REASON);
    expect(previous).toContain(FIRST_DRAFT);
    expect(previous).toContain('<attempt n="1" verdict="retry">');
    // The objective stays the objective: replies keyed on it keep matching, and nothing else leaks into it.
    expect(section(retry, 'objective')).toBe('write the haiku');
    expect(section(first, 'objective')).toBe('write the haiku');

    const events = await storedEvents(home, 'r');
    const startsOfPoem = events.filter(
      (e): e is Extract<WeftEvent, { type: 'task-start' }> => e.type === 'task-start' && e.taskId === 'poem',
    );
    expect(startsOfPoem.map((e) => e.feedback)).toStrictEqual([
      undefined,
      [{ attempt: 1, verdict: 'retry', reason: REASON }],
    ]);
    expect(result.tasks.find((t) => t.id === 'poem')?.retries).toStrictEqual([
      { attempt: 2, feedback: [{ attempt: 1, verdict: 'retry', reason: REASON }] },
    ]);
    expect(result.tasks.find((t) => t.id === 'art')?.retries).toBeUndefined();
  });

  it('is told the same after a crash between the verdict and the retry, folded from the log', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-retry-ref-'));
    const store = await openRunStore({ home });
    await runTask({ task: PLAN.task, plan: workflowFromJson(PLAN), model: poetModel(), store, home, runId: 'r' });
    const events = await runEvents(store, 'r');
    const versions = await store.planVersions('r');
    await store.close();
    const verdict = events.findIndex((e) => e.type === 'task-verify' && e.taskId === 'poem' && e.verdict === 'retry');
    expect(verdict).toBeGreaterThan(0);
    const cut = events.slice(0, verdict + 1);

    // The fold gives the retry what the live run gave it.
    const folded = foldForResume(cut);
    expect(folded.earlier.get('poem')?.shown).toStrictEqual([
      { attempt: 1, verdict: 'retry', output: FIRST_DRAFT, reason: REASON },
    ]);

    const crashedHome = mkdtempSync(join(tmpdir(), 'weft-retry-cut-'));
    const crashed = await openRunStore({ home: crashedHome });
    const start = events[0] as Extract<WeftEvent, { type: 'run-start' }>;
    await crashed.createRun({ runId: 'r', task: PLAN.task, model: start.model, options: start.options });
    await crashed.appendEvents('r', cut as unknown as EventRecord[]);
    for (const version of versions) await crashed.savePlanVersion({ ...version, runId: 'r' });
    const model = poetModel();
    const resumed = await resumeRun({ runId: 'r', model, store: crashed, home: crashedHome });
    await crashed.close();
    expect(resumed.status).toBe('completed');

    // The resumed run never ran attempt 1 itself, yet its retry is told of it.
    const prompts = executePrompts(model, 'poem');
    expect([...prompts.keys()]).toStrictEqual([2]);
    const previous = section(prompts.get(2)!, 'previous-attempts')!;
    expect(previous).toContain(REASON);
    expect(previous).toContain(FIRST_DRAFT);
    const after = (await storedEvents(crashedHome, 'r')).slice(cut.length);
    const retryStart = after.find((e) => e.type === 'task-start' && e.taskId === 'poem');
    expect(retryStart).toMatchObject({ attempt: 2, feedback: [{ attempt: 1, verdict: 'retry', reason: REASON }] });
  });

  it('is told nothing of earlier attempts with retry feedback off, and the log records nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-retry-off-'));
    const store = await openRunStore({ home });
    const model = poetModel();
    await runTask({
      task: PLAN.task,
      plan: workflowFromJson(PLAN),
      model,
      store,
      home,
      runId: 'r',
      prompts: { retryFeedback: false },
    });
    await store.close();
    const retry = executePrompts(model, 'poem').get(2)!;
    expect(retry).not.toContain('<previous-attempts>');
    expect(retry).not.toContain(REASON);
    const events = await storedEvents(home, 'r');
    expect(events.filter((e) => e.type === 'task-start' && e.feedback !== undefined)).toStrictEqual([]);
    const runStart = events[0] as Extract<WeftEvent, { type: 'run-start' }>;
    expect(runStart.options.retryFeedback).toBe(false);
  });
});

describe('what an agent sees besides its objective', () => {
  it('gets the objectives of the subtasks that need its result and its output format, each in its own tag', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-needed-'));
    const store = await openRunStore({ home });
    const model = poetModel();
    await runTask({ task: PLAN.task, plan: workflowFromJson(PLAN), model, store, home, runId: 'r' });
    await store.close();
    const poem = executePrompts(model, 'poem').get(1)!;
    expect(section(poem, 'needed-by')).toContain('- art: describe an illustration of the haiku');
    expect(poem).toContain('<output-format>plain text, 3 lines</output-format>');
    const art = executePrompts(model, 'art').get(1)!;
    // A sink subtask is needed by none, and a subtask without a format is given none.
    expect(art).not.toContain('<needed-by>');
    expect(art).not.toContain('<output-format>');
  });

  it('gets no <needed-by> with the option off', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-needed-off-'));
    const store = await openRunStore({ home });
    const model = poetModel();
    await runTask({
      task: PLAN.task,
      plan: workflowFromJson(PLAN),
      model,
      store,
      home,
      runId: 'r',
      prompts: { neededBy: false },
    });
    await store.close();
    expect(executePrompts(model, 'poem').get(1)).not.toContain('<needed-by>');
  });
});

describe('the inspector of a run', () => {
  it("is shown the failed subtask's own output, live and after a resume", async () => {
    const model = testModel({
      execute: (key) => (key === 'b' ? `BROKEN-B-OUTPUT ${'z'.repeat(3_000)}` : `out ${key}`),
      verify: (key, attempt) =>
        key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'b lacks the nav bar' } : { verdict: 'accept' },
    });
    const { events, promise } = run(diamond(), { model, runId: 'r1' });
    await promise;
    const update = model.calls.find((call) => call.tag?.purpose === 'update')!;
    const failure = section(update.messages[0]!.content, 'failed-outputs')!;
    expect(failure).toContain('BROKEN-B-OUTPUT');
    expect(failure).toContain('b lacks the nav bar');
    // Cut once, counting from the whole output (16 + 3,000 characters, 2,000 shown), with where to read the rest.
    expect(failure).toContain('[1016 more characters cut (whole output: weft show r1 --attempts b)]');

    // A log cut before the repair round: the resume asks the inspector about the same failure, output and all.
    const verdict = events.findIndex(
      (e) => e.type === 'task-verify' && (e as unknown as { verdict: string }).verdict === 'replan',
    );
    const header: WeftEvent[] = [{ type: 'plan-chosen', at: 0, version: 1, index: 0, workflow: diamond() }];
    const log = [...header, ...events.slice(0, verdict + 1).map((e, at) => ({ ...e, at }) as WeftEvent)];
    expect(foldForResume(log).failures).toStrictEqual([
      { id: 'b', reason: 'b lacks the nav bar', output: `BROKEN-B-OUTPUT ${'z'.repeat(3_000)}` },
    ]);
  });
});
