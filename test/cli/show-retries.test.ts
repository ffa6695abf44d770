/**
 * `weft show` says what each retry was told, and `--attempts <subtask>` prints every attempt with its whole output
 * (the inspector's prompt points there for a failed output it cut).
 */
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { cli, tempHome } from './cli-harness.js';

const REASON = 'the list stops at item 2 of 3';

async function retriedRun() {
  const home = tempHome();
  const store = await openRunStore({ home });
  const model = scriptedModel((call) => {
    const attempt = call.tag?.attempt ?? 1;
    if (call.tag?.purpose === 'execute') return `LIST DRAFT ${attempt}`;
    if (call.tag?.purpose === 'verify')
      return JSON.stringify(attempt === 1 ? { verdict: 'retry', reason: REASON } : { verdict: 'accept', reason: 'ok' });
    return '{}';
  });
  const run = await runTask({
    task: 'list three things',
    plan: workflowFromJson({
      task: 'list three things',
      subtasks: [{ id: 'list', objective: 'list three things', agent: 'writer', dependsOn: [] }],
    }),
    model,
    store,
    home,
  });
  await store.close();
  return { home, runId: run.runId };
}

describe('weft show and retries', () => {
  it('lists what each retry was told, in the text and in --json', async () => {
    const { home, runId } = await retriedRun();
    const text = await cli(['show', runId, '--home', home]);
    expect(text.stdout).toMatch(
      /list +completed +attempts 2\n +retry 2 was told: #1 retry: the list stops at item 2 of 3/,
    );
    const document = JSON.parse((await cli(['show', runId, '--home', home, '--json'])).stdout) as {
      tasks: { id: string; retries?: unknown }[];
    };
    expect(document.tasks[0]?.retries).toStrictEqual([
      { attempt: 2, feedback: [{ attempt: 1, verdict: 'retry', reason: REASON }] },
    ]);
  });

  it('prints every attempt of a subtask with --attempts, the rejected output included', async () => {
    const { home, runId } = await retriedRun();
    const text = await cli(['show', runId, '--home', home, '--attempts', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('attempt 1 (writer): completed\n  verdict: retry: the list stops at item 2 of 3');
    expect(text.stdout).toContain('LIST DRAFT 1');
    expect(text.stdout).toContain(`attempt 2 (writer): completed\n  told of attempt 1 (retry): ${REASON}`);
    const document = JSON.parse((await cli(['show', runId, '--home', home, '--attempts', 'list', '--json'])).stdout);
    expect(document).toMatchObject({
      id: 'list',
      status: 'completed',
      attempts: [
        { attempt: 1, feedback: [], verdicts: [{ verdict: 'retry', reason: REASON }], output: 'LIST DRAFT 1' },
        { attempt: 2, feedback: [{ attempt: 1, verdict: 'retry', reason: REASON }], output: 'LIST DRAFT 2' },
      ],
    });
    const unknown = await cli(['show', runId, '--home', home, '--attempts', 'nope']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('has no subtask "nope"; its subtasks are list');
  });
});
