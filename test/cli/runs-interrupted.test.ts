/** `weft runs` shows a run whose process died as interrupted. */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';
import { deadPid, seedRuns } from './seed-home.js';

describe('weft runs: interrupted runs', () => {
  it('shows a running run whose process is gone as interrupted, and leaves live and unknown ones running', async () => {
    const home = tempHome();
    const here = hostname();
    await seedRuns(home, [
      { runId: 'dead', status: 'running', ageMs: 5000, owner: { pid: deadPid(), host: here } },
      { runId: 'live', status: 'running', ageMs: 4000, owner: { pid: process.pid, host: here } },
      { runId: 'remote', status: 'running', ageMs: 3000, owner: { pid: deadPid(), host: `not-${here}` } },
      { runId: 'legacy', status: 'running', ageMs: 2000 },
      { runId: 'done', status: 'completed', ageMs: 1000, owner: { pid: deadPid(), host: here } },
    ]);
    // --oldest-first: the order they were seeded in (the default is newest first).
    const result = await cli(['runs', '--home', home, '--json', '--oldest-first']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      runs: { runId: string; status: string; task: string; createdAt: string }[];
    };
    expect(document.runs.map((run) => [run.runId, run.status])).toEqual([
      ['dead', 'interrupted'],
      ['live', 'running'],
      ['remote', 'running'],
      ['legacy', 'running'],
      ['done', 'completed'],
    ]);
    expect(Object.keys(document.runs[0] ?? {})).toEqual(['runId', 'status', 'task', 'createdAt']);

    const text = await cli(['runs', '--home', home]);
    expect(text.stdout).toMatch(/^dead {2}interrupted /m);
    expect(text.stderr).toContain('1 interrupted run: continue with `weft resume <runId>`');
  });

  it('`weft show` says a run whose process is alive is running, and one whose process died is interrupted', async () => {
    const home = tempHome();
    await seedRuns(home, [
      { runId: 'live', status: 'running', ageMs: 1000, owner: { pid: process.pid, host: hostname() } },
      { runId: 'dead', status: 'running', ageMs: 1000, owner: { pid: deadPid(), host: hostname() } },
    ]);
    expect((await cli(['show', 'live', '--home', home])).stdout).toMatch(
      new RegExp(`^run live: running \\(pid ${process.pid}\\)$`, 'm'),
    );
    expect((await cli(['show', 'dead', '--home', home])).stdout).toMatch(/^run dead: interrupted$/m);
    expect(JSON.parse((await cli(['show', 'dead', '--home', home, '--json'])).stdout)).toMatchObject({
      status: 'interrupted',
    });
  });

  it('lists a finished real run as completed', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({ task: 't', subtasks: [{ id: 'a', objective: 'do a', agent: 'w', dependsOn: [] }] }),
    );
    const run = await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home, '--json']);
    expect(run.code).toBe(0);
    const document = JSON.parse((await cli(['runs', '--home', home, '--json'])).stdout) as {
      runs: { status: string }[];
    };
    expect(document.runs.map((entry) => entry.status)).toEqual(['completed']);
  });
});
