/** Team events under today's names: a stream recorded by an earlier version (ending in `stop`) reads as `team-end`. */
import { describe, expect, it } from 'vitest';
import { normalizeTeamEvent, type TeamEvent } from '../../src/team/team-events.js';

/** JSON lines as an earlier version's `onEvent` consumer would have logged them: no `team-start`, `stop` at the end. */
const OLD_LOG = [
  '{"type":"layer-start","step":1,"agents":["a","b","c"]}',
  '{"type":"consensus-check","step":1,"agreeing":3,"of":3,"answered":3,"answer":"B","stop":true,"reason":"3 of 3 agree"}',
  '{"type":"stop","step":1,"reason":"consensus","answer":"B","calls":3}',
].join('\n');

describe('normalizeTeamEvent', () => {
  it('reads an earlier version’s `stop` as `team-end`, with every field kept, and leaves other events alone', () => {
    const events = OLD_LOG.split('\n').map((line) => normalizeTeamEvent(JSON.parse(line) as { type: string }));
    expect(events.map((event) => event.type)).toEqual(['layer-start', 'consensus-check', 'team-end']);
    expect(events.at(-1)).toEqual({ type: 'team-end', step: 1, reason: 'consensus', answer: 'B', calls: 3 });
    expect(events[0]).toEqual({ type: 'layer-start', step: 1, agents: ['a', 'b', 'c'] });
  });

  it('leaves today’s names as they are', () => {
    const today: TeamEvent[] = [
      { type: 'team-start', agents: ['a'], maxSteps: 4 },
      { type: 'team-end', step: 2, reason: 'max-steps', answer: 'x', calls: 8 },
    ];
    expect(today.map(normalizeTeamEvent)).toEqual(today);
  });
});
