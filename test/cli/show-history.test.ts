/** `weft show <runId> --history` on real sim runs. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/store/open-store.js';
import { cli, tempHome } from './cli-harness.js';

interface HistoryDocument {
  runId: string;
  versions: {
    version: number;
    cause: string;
    createdAt: string | null;
    atMs: number | null;
    diff: {
      added: string[];
      removed: string[];
      changed: { id: string; objective?: { from: string; to: string } }[];
      rewired: unknown[];
    } | null;
    subtasks: { id: string; objective: string; agent: string; dependsOn: string[] }[];
    candidates?: { index: number; subtasks: number }[];
    chosen?: number;
  }[];
  updatesWithoutChange: number;
}

/** A sim run whose plan was updated at least twice (the seed that gives one is searched, not assumed). */
async function runWithTwoUpdates(home: string): Promise<string> {
  for (let seed = 1; seed <= 20; seed += 1) {
    const result = await cli([
      'run',
      'Build a small game',
      '--model',
      `sim:seed=${seed},fail=0.5`,
      '--home',
      home,
      '--json',
    ]);
    const document = JSON.parse(result.stdout) as { runId: string; planVersion: number };
    if (document.planVersion >= 3) return document.runId;
  }
  throw new Error('no seed in 1..20 gave a run with two plan updates');
}

describe('weft show --history', () => {
  it('replays each version with its cause, diff and candidates (--json)', async () => {
    const home = tempHome();
    const runId = await runWithTwoUpdates(home);
    const result = await cli(['show', runId, '--history', '--home', home, '--json']);
    expect(result.code).toBe(0);
    const history = JSON.parse(result.stdout) as HistoryDocument;
    expect(history.runId).toBe(runId);
    expect(history.versions.length).toBeGreaterThanOrEqual(3);
    expect(history.versions.map((version) => version.version)).toEqual(history.versions.map((_, index) => index + 1));

    const [first, second] = history.versions;
    expect(first).toMatchObject({ version: 1, cause: 'initial plan', diff: null });
    expect(first?.candidates).toHaveLength(3);
    expect(first?.chosen).toBeGreaterThanOrEqual(0);
    expect(first?.candidates?.[first.chosen ?? -1]?.subtasks).toBe(first?.subtasks.length);
    expect(second?.cause).toMatch(/verification failure/);
    expect(second?.candidates?.length).toBeGreaterThan(0);
    // Every version chosen from candidates says which one, not only the first.
    for (const version of history.versions.filter((v) => v.candidates !== undefined)) {
      expect(version.chosen, `v${version.version}`).toBeGreaterThanOrEqual(0);
      expect(version.candidates?.some((candidate) => candidate.index === version.chosen)).toBe(true);
    }
    // The sim inspector revises a failed subtask's objective: the diff names the old and the new one.
    const change = second?.diff?.changed[0];
    expect(change?.objective?.to).toBe(`${change?.objective?.from} (revised)`);

    // Versions and their workflows are the stored plan versions.
    const store = await openRunStore({ home });
    const stored = await store.planVersions(runId);
    await store.close();
    expect(history.versions.map((version) => [version.version, version.cause, version.createdAt])).toEqual(
      stored.map((version) => [version.version, version.cause, version.createdAt]),
    );
    expect(history.versions.at(-1)?.subtasks.map((subtask) => subtask.objective)).toEqual(
      stored.at(-1)?.workflow.subtasks.map((subtask) => subtask.objective),
    );

    // The last version is the one `weft show` reports.
    const show = JSON.parse((await cli(['show', runId, '--home', home, '--json'])).stdout) as { planVersion: number };
    expect(show.planVersion).toBe(history.versions.at(-1)?.version);
  });

  it('prints the history as text', async () => {
    const home = tempHome();
    const runId = await runWithTwoUpdates(home);
    const result = await cli(['show', runId, '--history', '--home', home]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^run ${runId}: \\d+ plan versions$`));
    expect(lines[1]).toMatch(/^v1: initial plan \(at \d+\.\d\d s\)$/);
    expect(result.stdout).toMatch(/^v2: .*verification failure/m);
    expect(result.stdout).toMatch(/^ {2}~ t\d+: ".*" → ".* \(revised\)"$/m);
    expect(result.stdout).toMatch(/^ {4}\*#\d /m);
  });

  it('shows a given plan with no candidates', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({ task: 't', subtasks: [{ id: 'a', objective: 'do a', agent: 'w', dependsOn: [] }] }),
    );
    const run = JSON.parse(
      (await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home, '--json'])).stdout,
    ) as { runId: string };
    const history = JSON.parse(
      (await cli(['show', run.runId, '--history', '--home', home, '--json'])).stdout,
    ) as HistoryDocument;
    expect(history.versions[0]).toMatchObject({ version: 1, cause: 'given plan', diff: null });
    expect(history.versions[0]).not.toHaveProperty('candidates');
  });

  it('is bad input together with --mermaid or --dot, and for an unknown run', async () => {
    const home = tempHome();
    const both = await cli(['show', 'x', '--history', '--dot', '--home', home, '--json']);
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { field: '--dot' } } });
    const unknown = await cli(['show', 'nope', '--history', '--home', home, '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
