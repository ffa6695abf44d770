import { describe, expect, it } from 'vitest';
import { generatedQueries, runMethod, simTeam, summarizeOutcomes, type QueryOutcome } from '../../bench/teams.bench.js';

const outcome = (over: Partial<QueryOutcome>): QueryOutcome => ({
  right: true,
  calls: 4,
  earlyStop: false,
  stoppedAt: 1,
  rankerFallbacks: 0,
  ratingFallbacks: 0,
  ...over,
});

describe('teams bench helpers', () => {
  it('summarizeOutcomes averages accuracy, calls, early stops and stop steps, and sums fallbacks', () => {
    expect(
      summarizeOutcomes([
        outcome({ right: true, calls: 4, earlyStop: true, stoppedAt: 1 }),
        outcome({ right: false, calls: 15, stoppedAt: 4, rankerFallbacks: 1, ratingFallbacks: 2 }),
        outcome({ right: true, calls: 8, earlyStop: true, stoppedAt: 2, ratingFallbacks: 1 }),
        outcome({ right: true, calls: 9, stoppedAt: 3 }),
      ]),
    ).toEqual({
      queries: 4,
      accuracy: 0.75,
      callsPerQuery: 9,
      earlyStopRate: 0.5,
      meanStopStep: 2.5,
      rankerFallbacks: 1,
      ratingFallbacks: 3,
    });
    expect(() => summarizeOutcomes([])).toThrow(RangeError);
  });

  it('generates distinct exact questions', () => {
    const queries = generatedQueries(50);
    expect(new Set(queries.map((q) => q.question)).size).toBe(50);
    expect(queries.every((q) => q.kind === 'exact')).toBe(true);
  });

  it('the methods cost what they should: 1 call, a 16-call debate, 15 without early stop, fewer with it', async () => {
    const team = simTeam(1);
    const queries = generatedQueries(20);
    for (const query of queries) {
      expect((await runMethod('single', team, query, 1)).calls).toBe(1);
      const debate = await runMethod('debate', team, query, 1);
      expect(debate).toMatchObject({ calls: 16, stoppedAt: 4, earlyStop: false });
      // Reformation after step 3 keeps 2: 4 + 4 + 4 + 1 ranker call + 2.
      expect((await runMethod('dylan-no-early-stop', team, query, 1)).calls).toBe(15);
      const dylan = await runMethod('dylan', team, query, 1);
      expect(dylan.calls).toBeLessThanOrEqual(15);
      expect(dylan.calls).toBe(dylan.stoppedAt <= 3 ? 4 * dylan.stoppedAt : 15);
    }
  });

  it('is deterministic: the same team seed gives the same outcomes', async () => {
    const [query] = generatedQueries(1);
    const first = await runMethod('dylan', simTeam(3), query!, 3);
    expect(await runMethod('dylan', simTeam(3), query!, 3)).toEqual(first);
  });
});
