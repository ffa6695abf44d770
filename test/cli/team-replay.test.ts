/**
 * `weft team replay`: the DyLAN authors' recorded replies (a subset in test/fixtures/dylan-mmlu, see its README)
 * replayed through the team engine give the replies per query their `.txt` files record.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './cli-harness.js';

const FIXTURES = 'test/fixtures/dylan-mmlu';

/** The `.txt`'s second line: total replies and replies per query, as the authors' script wrote them. */
function recordedPerQuery(agents: number): number {
  const dir = join(FIXTURES, `mmlu_optimal7_${agents}`);
  const txt = readdirSync(dir).find((name) => name.endsWith('.txt'))!;
  const [, perQuery] = readFileSync(join(dir, txt), 'utf8').split('\n')[1]!.trim().split(/\s+/);
  return Number(perQuery);
}

interface Group {
  label: string;
  summary: { queries: number; replayed: number; countMatches: number; weftRepliesPerQuery: number };
}

describe('weft team replay', () => {
  it("gives every recorded team's replies per query, query by query, on the fixture folder", async () => {
    const result = await cli(['team', 'replay', FIXTURES, '--json']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as { groups: Group[]; mismatched: number };
    expect(document.groups.map((group) => group.label.split(' ')[0])).toStrictEqual(['2', '3', '4', '7']);
    for (const [index, agents] of [2, 3, 4, 7].entries()) {
      const { summary } = document.groups[index]!;
      expect(summary.replayed).toBe(summary.queries);
      expect(summary.countMatches).toBe(summary.queries);
      expect(summary.weftRepliesPerQuery).toBeCloseTo(recordedPerQuery(agents), 9);
    }
    expect(document.mismatched).toBe(0);
  });

  it('prints a readable report for one recording', async () => {
    const file = join(FIXTURES, 'mmlu_optimal7_2', 'business_ethics_test_23.json');
    const result = await cli(['team', 'replay', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${file}: 1 recording(s), 4 queries, 4 replayed`);
    expect(result.stdout).toMatch(/reply counts equal: 4\/4/);
  });

  it('engine order with layer checks asks for replies the authors never requested, and says which', async () => {
    const result = await cli([
      'team',
      'replay',
      join(FIXTURES, 'mmlu_optimal7_4'),
      '--order',
      'engine',
      '--stop-check',
      'layer',
      '--json',
    ]);
    const document = JSON.parse(result.stdout) as {
      groups: { summary: { countMismatches: { missingReply?: string }[] } }[];
    };
    const missing = document.groups[0]!.summary.countMismatches.filter((m) => m.missingReply !== undefined);
    expect(missing.length).toBeGreaterThan(0);
    expect(missing[0]!.missingReply).toMatch(/^agent \d \(.+\) round \d$/);
  });

  it('refuses bad flags and paths, naming them', async () => {
    const reading = await cli(['team', 'replay', FIXTURES, '--reading', 'mine']);
    expect(reading.code).toBe(2);
    expect(reading.stderr).toContain('--reading must be authors or weft');
    const missing = await cli(['team', 'replay', join(FIXTURES, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.json: no such file or folder');
    const empty = await cli(['team', 'replay', 'test/fixtures/flowagent']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no recordings');
  });
});
