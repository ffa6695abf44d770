/**
 * Role kinds are engines a run is given (run/role-kind.ts): a toy kind registered through the list runs its
 * subtasks end to end, and a run without the engine of a kind its plan uses is refused before it exists.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WeftError } from '../../src/errors.js';
import { parseWorkflow } from '../../src/graph/index.js';
import type { Workflow } from '../../src/graph/workflow.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { defaultRoleKinds } from '../../src/role-kinds.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask } from '../../src/run/run-task.js';
import { openSqliteRunStore, type SqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { createEchoRoleKind } from './echo-role-kind.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(): Promise<{ home: string; store: SqliteRunStore }> {
  const home = await mkdtemp(join(tmpdir(), 'weft-role-kind-'));
  cleanup.push(() => rm(home, { recursive: true, force: true }));
  const store = openSqliteRunStore(join(home, 'weft.db'));
  cleanup.push(() => store.close());
  return { home, store };
}

function plan(kind: string): Workflow {
  const text = JSON.stringify({
    task: 'Greet the reader',
    roles: [
      { name: 'parrot', prompt: 'You repeat.', kind },
      { name: 'writer', prompt: 'You write.' },
    ],
    subtasks: [
      { id: 'say', objective: 'Hello, reader', agent: 'parrot', dependsOn: [] },
      { id: 'sign', objective: 'Sign the greeting', agent: 'writer', dependsOn: ['say'] },
    ],
  });
  const parsed = parseWorkflow(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.workflow;
}

/** The run's own model: only the `llm` subtask calls it; it sees the echoed output as its parent's. */
function writerModel() {
  const prompts: string[] = [];
  const model = scriptedModel((call) => {
    if (call.tag?.purpose !== 'execute') throw new Error(`unexpected call ${call.tag?.purpose}`);
    prompts.push(call.messages.map((message) => message.content).join('\n'));
    return 'Hello, reader. — Weft';
  });
  return { model, prompts };
}

async function rejection(run: PromiseLike<unknown>): Promise<WeftError> {
  const error = await run.then(
    () => undefined,
    (failed: unknown) => failed as WeftError,
  );
  if (!error) throw new Error('expected the run to be refused');
  return error;
}

describe('a registered role kind', () => {
  it('runs the subtasks of its roles end to end, next to the llm ones', async () => {
    const { home, store } = await setup();
    const echo = createEchoRoleKind();
    const { model, prompts } = writerModel();
    const events: WeftEvent[] = [];
    const result = await runTask({
      task: 'Greet the reader',
      plan: plan('echo'),
      model,
      store,
      home,
      onEvent: (event) => events.push(event),
      run: { verify: false },
      roles: { kinds: [echo] },
    });

    expect(result.status).toBe('completed');
    expect(echo.runs).toEqual(['say#1']);
    expect(result.tasks.map((task) => [task.id, task.status, task.output])).toEqual([
      ['say', 'completed', 'Hello, reader'],
      ['sign', 'completed', 'Hello, reader. — Weft'],
    ]);
    // One model call, the llm subtask's, which got the echo's output as its parent's.
    expect(events.filter((event) => event.type === 'model-call')).toHaveLength(1);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('Hello, reader');
    expect(await readFile(join(result.runDir, 'outputs', 'say.md'), 'utf8')).toContain('Hello, reader');
  });

  it('is refused, before any run exists, when the run is not given its engine', async () => {
    const { home, store } = await setup();
    const error = await rejection(
      runTask({
        task: 'Greet the reader',
        plan: plan('echo'),
        model: writerModel().model,
        store,
        home,
        planFile: '/plans/greet.json',
      }),
    );
    expect(error).toMatchObject({
      code: 'BAD_INPUT',
      location: { file: '/plans/greet.json', field: 'roles.parrot.kind' },
    });
    expect(error.message).toBe('Unknown role kind "echo" (role "parrot"); known: llm');
    // The team engine is a kind like any other: a library run without it does not know `team`.
    const withTeams = await rejection(
      runTask({
        task: 'Greet the reader',
        plan: plan('crowd'),
        model: writerModel().model,
        store,
        home,
        roles: { kinds: defaultRoleKinds() },
      }),
    );
    expect(withTeams.message).toBe('Unknown role kind "crowd" (role "parrot"); known: llm, team');
    expect(await store.listRuns()).toEqual([]);
  });

  it('refuses teams offered to the planner when the run has no team engine', async () => {
    const { home, store } = await setup();
    const teams = [{ name: 'panel', file: '/teams/panel.yaml', description: 'a panel' }];
    const error = await rejection(
      runTask({
        task: 'Greet the reader',
        model: writerModel().model,
        store,
        home,
        teams,
        roles: { kinds: [createEchoRoleKind()] },
      }),
    );
    expect(error).toMatchObject({ code: 'BAD_INPUT', location: { field: 'teams' } });
    expect(error.message).toBe(
      'Teams are offered to the planner, and the run has no engine for role kind "team"; known: llm, echo',
    );
    expect(await store.listRuns()).toEqual([]);
  });

  it('must be registered once, and not as llm', async () => {
    const { home, store } = await setup();
    const twice = await rejection(
      runTask({
        task: 'Greet the reader',
        plan: plan('echo'),
        model: writerModel().model,
        store,
        home,
        roles: { kinds: [createEchoRoleKind(), createEchoRoleKind()] },
      }),
    );
    expect(twice.message).toBe('Role kind "echo" is registered twice');
    const llm = await rejection(
      runTask({
        task: 'Greet the reader',
        plan: plan('llm'),
        model: writerModel().model,
        store,
        home,
        roles: { kinds: [{ ...createEchoRoleKind(), kind: 'llm' }] },
      }),
    );
    expect(llm.message).toBe('Role kind "llm" is the built-in kind');
    expect(await store.listRuns()).toEqual([]);
  });

  it('is needed again to resume a run whose plan uses it', async () => {
    const { home, store } = await setup();
    const echo = createEchoRoleKind();
    const controller = new AbortController();
    // Cancelled once the echo subtask is done: the llm subtask is left to the resume.
    const cancelled = await runTask({
      task: 'Greet the reader',
      plan: plan('echo'),
      model: writerModel().model,
      store,
      home,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'task-end' && event.taskId === 'say') controller.abort();
      },
      run: { verify: false },
      roles: { kinds: [echo] },
    });
    expect(cancelled.status).toBe('cancelled');
    const refused = await rejection(resumeRun({ runId: cancelled.runId, model: writerModel().model, store, home }));
    expect(refused.message).toBe('Unknown role kind "echo" (role "parrot"); known: llm');
    expect((await store.getRun(cancelled.runId))?.status).toBe('cancelled');

    const resumed = await resumeRun({
      runId: cancelled.runId,
      model: writerModel().model,
      store,
      home,
      roles: { kinds: [echo] },
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.tasks.map((task) => task.output)).toEqual(['Hello, reader', 'Hello, reader. — Weft']);
    expect(echo.runs).toEqual(['say#1']);
  });
});
