/** `weft runs`, `sessions` and `traces` list newest first, `--oldest-first` flips it, in text and in --json alike. */
import { describe, expect, it } from 'vitest';
import { inListOrder } from '../../src/cli/list-order.js';
import { cli, tempHome } from './cli-harness.js';

describe('the order of the lists', () => {
  it('inListOrder: newest first by createdAt, oldest first when asked, ties in the given order', () => {
    const items = [
      { id: 'b', createdAt: '2026-01-02T00:00:00.000Z' },
      { id: 'a', createdAt: '2026-01-01T00:00:00.000Z' },
      { id: 'c', createdAt: '2026-01-03T00:00:00.000Z' },
    ];
    expect(inListOrder(items).map((item) => item.id)).toEqual(['c', 'b', 'a']);
    expect(inListOrder(items, true).map((item) => item.id)).toEqual(['a', 'b', 'c']);
    expect(items.map((item) => item.id)).toEqual(['b', 'a', 'c']);
  });

  it('weft runs: newest first, --oldest-first flips, text and --json', async () => {
    const home = tempHome();
    const ids: string[] = [];
    for (const task of ['Name a boat', 'Name a cat', 'Name a dog']) {
      const run = await cli(['run', task, '--model', 'sim:seed=1,tasks=2', '--home', home, '--json']);
      ids.push((JSON.parse(run.stdout) as { runId: string }).runId);
      // Distinct creation times (the store keeps milliseconds).
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const listed = async (...flags: string[]) =>
      (
        JSON.parse((await cli(['runs', '--home', home, '--json', ...flags])).stdout) as { runs: { runId: string }[] }
      ).runs.map((run) => run.runId);
    expect(await listed()).toEqual([...ids].reverse());
    expect(await listed('--oldest-first')).toEqual(ids);
    const text = (await cli(['runs', '--home', home])).stdout;
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[0]),
    ).toEqual([...ids].reverse());
  });

  it('weft sessions and weft traces take --oldest-first', async () => {
    for (const command of ['sessions', 'traces']) {
      const help = await cli([command, '--help']);
      expect(help.stdout, command).toMatch(/--oldest-first +list the oldest first \(default: newest first\)/);
      expect(help.stdout, command).toMatch(/newest first/);
      const empty = await cli([command, '--oldest-first', '--home', tempHome(), '--json']);
      expect(empty.code, command).toBe(0);
    }
  });
});
