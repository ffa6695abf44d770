import { describe, expect, it } from 'vitest';
import { toolCallLine, toolCallViews } from '../../src/run/tool-call-lines.js';
import type { WeftEvent } from '../../src/run/events.js';

const at = '2026-01-01T00:00:00.000Z';

describe('toolCallLine', () => {
  it('clips a made-up name and shows no terminal escape from a name, arguments or a result', () => {
    const events = [
      {
        type: 'tool-call',
        at,
        taskId: 'a',
        attempt: 1,
        sequence: 0,
        step: 0,
        callId: 'c',
        name: 'n'.repeat(100_000),
        args: {},
      },
      {
        type: 'tool-result',
        at,
        taskId: 'a',
        attempt: 1,
        sequence: 0,
        name: 'x',
        ok: false,
        error: 'no such tool',
        code: 'BAD_CALL',
        durationMs: 0,
      },
      {
        type: 'tool-call',
        at,
        taskId: 'a',
        attempt: 1,
        sequence: 1,
        step: 0,
        callId: 'd',
        name: 'get\u001b[2J',
        args: { q: '\u001b]0;owned\u0007' },
      },
      {
        type: 'tool-result',
        at,
        taskId: 'a',
        attempt: 1,
        sequence: 1,
        name: 'get',
        ok: true,
        result: 'ok\u001b[31mred\u009b',
        durationMs: 3,
      },
    ] as unknown as WeftEvent[];
    const [first, second] = toolCallViews(events).map(toolCallLine);
    expect(first!.length).toBeLessThan(300);
    expect(first).toBe(`${'n'.repeat(64)}… {} → BAD_CALL 0 ms: no such tool`);
    expect(second).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(second).toBe('get\\u001b[2J {"q":"\\u001b]0;owned\\u0007"} → ok 3 ms: ok\\u001b[31mred\\u009b');
  });
});
