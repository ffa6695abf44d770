/**
 * Reading never creates a store: `weft runs` and `weft show` on a home or `--store` with no database yet say
 * there is nothing there, name the store they looked in, and leave no file or folder behind.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';

describe('read commands on a store that does not exist', () => {
  it('`weft show --store sqlite:<other>` names that file and does not create it or its folder', async () => {
    const home = tempHome();
    const other = join(home, 'elsewhere', 'other.db');
    const result = await cli(['show', '20200101-000000-beef', '--store', `sqlite:${other}`, '--home', home, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`No run "20200101-000000-beef" in ${other}`);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(existsSync(join(home, 'elsewhere'))).toBe(false);
  });

  it('`weft show --history` on a fresh home creates nothing', async () => {
    const home = tempHome();
    const result = await cli(['show', '20200101-000000-beef', '--history', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`No run "20200101-000000-beef" in ${join(home, 'weft.db')}`);
    expect(readdirSync(home)).toEqual([]);
  });

  it('`weft runs` on a fresh home says there are no runs, exit 0, and creates nothing', async () => {
    const home = tempHome();
    const text = await cli(['runs', '--home', home]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`no runs in ${join(home, 'weft.db')}\n`);
    const json = await cli(['runs', '--home', home, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ runs: [] });
    expect(readdirSync(home)).toEqual([]);
  });

  it('an empty file is no store either, and stays empty', async () => {
    const home = tempHome();
    const empty = join(home, 'empty.db');
    writeFileSync(empty, '');
    const result = await cli(['runs', '--store', `sqlite:${empty}`, '--home', home, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ runs: [] });
    expect(readdirSync(home)).toEqual(['empty.db']);
    expect(statSync(empty).size).toBe(0);
  });

  it('a recorded run is still shown (the store is opened when it exists)', async () => {
    const home = tempHome();
    const run = JSON.parse(
      (await cli(['run', 'two parts', '--model', 'sim:seed=5,tasks=2', '--home', home, '--json'])).stdout,
    ) as { runId: string };
    const shown = await cli(['show', run.runId, '--home', home, '--json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ runId: run.runId, status: 'completed' });
  });
});
