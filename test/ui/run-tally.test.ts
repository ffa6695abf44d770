/** The runs list's tally folds typed run events, and tolerates a log whose events lack fields later versions write. */
import { describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import type { StoredEvent } from '../../src/store/run-store.js';
import { addToTally, emptyTally } from '../../src/ui/run-tally.js';

const stored = (seq: number, event: object): StoredEvent<WeftEvent> =>
  ({ runId: 'r', seq, event }) as StoredEvent<WeftEvent>;

describe('addToTally', () => {
  it('counts calls, tokens, cost, tool calls, failed tool calls and subtasks, and continues from where it stopped', () => {
    const call = { type: 'model-call', purpose: 'execute', model: 'sim', durationMs: 1 };
    const tally = addToTally(emptyTally(), [
      stored(1, { type: 'run-start', at: 0 }),
      stored(2, { type: 'plan-chosen', at: 5, version: 1, index: 0, workflow: { task: 't', subtasks: [{}, {}, {}] } }),
      stored(3, { ...call, at: 9, inputTokens: 10, outputTokens: 4, costUsd: 0.5 }),
      stored(4, { type: 'tool-call', at: 12, name: 'lookup' }),
      stored(5, { type: 'tool-result', at: 13, name: 'lookup', ok: false }),
      stored(6, { type: 'tool-result', at: 14, name: 'lookup', ok: true }),
    ]);
    expect(tally).toMatchObject({ lastSeq: 6, durationMs: 14, calls: 1, inputTokens: 10, outputTokens: 4 });
    expect(tally).toMatchObject({ costUsd: 0.5, toolCalls: 1, toolCallsFailed: 1, subtasks: 3 });
    // An older log's call without token or cost fields counts as a call with none.
    addToTally(tally, [stored(7, { ...call, at: 20 }), stored(8, { type: 'run-end', at: 21, status: 'completed' })]);
    expect(tally).toMatchObject({ lastSeq: 8, durationMs: 21, calls: 2, inputTokens: 10, costUsd: 0.5 });
  });
});
