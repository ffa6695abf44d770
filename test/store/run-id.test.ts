import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newRunId, RUN_ID_PATTERN } from '../../src/store/run-id.js';
import { databasePath, runPaths } from '../../src/store/run-paths.js';

describe('newRunId', () => {
  it('is the UTC time to the second plus a 4-hex suffix', () => {
    const id = newRunId(new Date('2026-11-22T04:45:01.999Z'));
    expect(id).toMatch(/^20261122-044501-[0-9a-f]{4}$/);
    expect(id).toMatch(RUN_ID_PATTERN);
  });

  it('sorts by time', () => {
    const dates = ['2025-01-02T00:00:00Z', '2025-01-10T09:00:00Z', '2025-10-01T00:00:00Z', '2026-01-01T00:00:00Z'];
    const ids = dates.map((date) => newRunId(new Date(date)));
    expect([...ids].reverse().sort()).toEqual(ids);
  });

  it('varies the suffix between runs started in the same second', () => {
    const date = new Date('2026-01-01T00:00:00Z');
    const ids = new Set(Array.from({ length: 50 }, () => newRunId(date)));
    expect(ids.size).toBeGreaterThan(40);
  });

  it('rejects an invalid date', () => {
    expect(() => newRunId(new Date('not a date'))).toThrow(TypeError);
  });
});

describe('runPaths', () => {
  it('follows the run directory contract', () => {
    const paths = runPaths('/home/.weft', '20261122-044501-7f3a');
    expect(paths.dir).toBe(join('/home/.weft', 'runs', '20261122-044501-7f3a'));
    expect(paths.artifacts).toBe(join(paths.dir, 'artifacts'));
    expect(paths.report).toBe(join(paths.dir, 'report.md'));
    expect(paths.planFile(2)).toBe(join(paths.dir, 'plan-v2.json'));
    expect(databasePath('/home/.weft')).toBe(join('/home/.weft', 'weft.db'));
  });

  it.each(['../x', 'a/b', '..', '', '.hidden', 'a\\b'])('refuses the run id %j', (runId) => {
    expect(() => runPaths('/home/.weft', runId)).toThrowError(expect.objectContaining({ code: 'BAD_INPUT' }));
  });
});
