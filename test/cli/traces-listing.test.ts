/** `weft traces` on a large store: a bounded listing by default (each trace is read whole), all with --limit. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACES_LIMIT } from '../../src/cli/distill/solve-command.js';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { newTraceId } from '../../src/store/traces.js';
import { cli } from './cli-harness.js';

describe('weft traces on a store with more traces than the default listing', () => {
  it('lists the newest DEFAULT_TRACES_LIMIT, says there are more, and lists all with --limit', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-traces-many-'));
    const store = openSqliteRunStore(join(home, 'weft.db'));
    const count = DEFAULT_TRACES_LIMIT + 5;
    for (let index = 0; index < count; index++) {
      await store.saveTrace({
        traceId: newTraceId(),
        task: 'sum',
        mode: 'react',
        model: 'sim',
        input: { n: index },
        calls: [],
        answer: index,
        success: true,
        usage: { calls: 1, inputTokens: 1, outputTokens: 1 },
      });
    }
    await store.close();
    const text = await cli(['traces', '--home', home]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.trim().split('\n')).toHaveLength(DEFAULT_TRACES_LIMIT);
    expect(text.stderr).toContain(`the newest ${DEFAULT_TRACES_LIMIT} traces are listed; there are more`);
    const json = JSON.parse((await cli(['traces', '--home', home, '--json'])).stdout) as {
      traces: unknown[];
      more?: boolean;
    };
    expect(json.traces).toHaveLength(DEFAULT_TRACES_LIMIT);
    expect(json.more).toBe(true);
    const all = JSON.parse((await cli(['traces', '--home', home, '--limit', '1000', '--json'])).stdout) as {
      traces: unknown[];
      more?: boolean;
    };
    expect(all.traces).toHaveLength(count);
    expect(all.more).toBeUndefined();
  });
});
