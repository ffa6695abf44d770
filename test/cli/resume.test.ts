import { describe, expect, it } from 'vitest';
import { currentOwner } from '../../src/store/run-owner.js';
import { openRunStore } from '../../src/store/open-store.js';
import { cli, tempHome } from './cli-harness.js';
import { cancelledSimRun } from './seed-home.js';

describe('weft resume', () => {
  it('an unknown run id exits 2', async () => {
    const result = await cli(['resume', '20200101-000000-beef', '--home', tempHome()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No run "20200101-000000-beef"/);
  });

  it('a finished run exits 2 and says so', async () => {
    const home = tempHome();
    const run = await cli([
      'run',
      'write a short story in four parts',
      '--model',
      'sim:seed=4,tasks=4',
      '--home',
      home,
      '--json',
    ]);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    const result = await cli(['resume', runId, '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/already finished \(completed\)/);
  });

  it('refuses a run whose owner process is alive', async () => {
    const home = tempHome();
    const store = await openRunStore({ home });
    // This test process is alive and on this host: a run it "owns" is live.
    await store.createRun({
      runId: 'live-run',
      task: 't',
      model: 'sim:seed=1',
      options: {},
      owner: { ...currentOwner(), pid: process.ppid },
    });
    await store.appendEvents('live-run', [
      {
        type: 'run-start',
        at: 0,
        runId: 'live-run',
        task: 't',
        model: 'sim:seed=1',
        strategy: 'on-failure',
        options: {},
      } as never,
    ]);
    await store.close();
    const result = await cli(['resume', 'live-run', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/still running or already being resumed by pid \d+/);
  });

  it('continues a cancelled run to completion, keeping what finished', async () => {
    const home = tempHome();
    const first = await cancelledSimRun(home);
    expect(first.status).toBe('cancelled');
    const completedBefore = first.tasks.filter((t) => t.status === 'completed').map((t) => t.id);
    expect(completedBefore.length).toBeGreaterThanOrEqual(2);
    const result = await cli(['resume', first.runId, '--home', home, '--json']);
    expect(result.code).toBe(0);
    const resumed = JSON.parse(result.stdout) as {
      status: string;
      tasks: { id: string; status: string; attempts: number }[];
    };
    expect(resumed.status).toBe('completed');
    for (const id of completedBefore) expect(resumed.tasks.find((t) => t.id === id)!.attempts).toBe(1);
  });
});

describe('weft resume: a run killed before its first event', () => {
  it('starts it from its record', async () => {
    const home = tempHome();
    const store = await openRunStore({ home });
    await store.createRun({
      runId: 'no-events',
      task: 'write a short story in four parts',
      model: 'sim:seed=4,tasks=4',
      options: { strategy: 'on-failure', candidates: 3, plan: 'generated' },
    });
    await store.close();
    const result = await cli(['resume', 'no-events', '--home', home, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ runId: 'no-events', status: 'completed', planVersion: 1 });
  });

  it('refuses a given plan that was never recorded, saying how to start again', async () => {
    const home = tempHome();
    const store = await openRunStore({ home });
    await store.createRun({ runId: 'given-lost', task: 't', model: 'sim:seed=4', options: { plan: 'given' } });
    await store.close();
    const result = await cli(['resume', 'given-lost', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/weft run --plan/);
  });
});
