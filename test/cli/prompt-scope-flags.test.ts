/** The `--no-…` flags of Flow's prompt scope reach the run's settings (recorded for a resume) and the planner. */
import { describe, expect, it } from 'vitest';
import { runEvents } from '../../src/run/run-events.js';
import { openRunStore } from '../../src/store/open-store.js';
import { cli, tempHome } from './cli-harness.js';

async function runStartOptions(home: string, runId: string): Promise<Record<string, unknown>> {
  const store = await openRunStore({ home });
  try {
    const start = (await runEvents(store, runId))[0];
    if (start?.type !== 'run-start') throw new Error(`run ${runId} does not begin with run-start`);
    return start.options;
  } finally {
    await store.close();
  }
}

describe('prompt scope flags', () => {
  it('are on by default and each turned off by its flag', async () => {
    const home = tempHome();
    const on = JSON.parse(
      (await cli(['run', 'write a guide', '--model', 'sim:seed=1', '--home', home, '--json'])).stdout,
    );
    expect(await runStartOptions(home, on.runId)).toMatchObject({
      retryFeedback: true,
      plannerScope: true,
      neededBy: true,
      minimalUpdates: true,
    });
    const off = await cli([
      'run',
      'write a guide',
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--json',
      '--no-retry-feedback',
      '--no-planner-scope',
      '--no-needed-by',
      '--no-minimal-updates',
    ]);
    expect(off.code).toBe(0);
    expect(await runStartOptions(home, JSON.parse(off.stdout).runId)).toMatchObject({
      retryFeedback: false,
      plannerScope: false,
      neededBy: false,
      minimalUpdates: false,
    });
  });

  it('refuses --no-planner-scope with weft plan --format worfbench, which has no scope rules', async () => {
    const result = await cli([
      'plan',
      'write a guide',
      '--model',
      'sim:seed=1',
      '--format',
      'worfbench',
      '--no-planner-scope',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--no-planner-scope does not apply to --format worfbench');
  });
});
