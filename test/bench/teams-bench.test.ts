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

  it('the methods cost what they should: 1 call, a 16-call debate, 15 without early stop, fewer with it, fewest per answer', async () => {
    // One team per method, as the bench does (sim models number repeated calls with the same tag).
    const teams = new Map<string, ReturnType<typeof simTeam>>();
    const teamFor = (method: string) => teams.get(method) ?? teams.set(method, simTeam(1)).get(method)!;
    const queries = generatedQueries(20);
    let saved = 0;
    for (const query of queries) {
      expect((await runMethod('single', teamFor('single'), query, 1)).calls).toBe(1);
      const debate = await runMethod('debate', teamFor('debate'), query, 1);
      expect(debate).toMatchObject({ calls: 16, stoppedAt: 4, earlyStop: false });
      // Reformation after step 3 keeps 2: 4 + 4 + 4 + 1 ranker call + 2.
      expect((await runMethod('dylan-no-early-stop', teamFor('dylan-no-early-stop'), query, 1)).calls).toBe(15);
      const perLayer = await runMethod('dylan-layer-stop', teamFor('dylan-layer-stop'), query, 1);
      expect(perLayer.calls).toBe(perLayer.stoppedAt <= 3 ? 4 * perLayer.stoppedAt : 15);
      // Per answer: the same stop step and answer; a stopping layer may end one call early (3 of 4 agree).
      const dylan = await runMethod('dylan', teamFor('dylan'), query, 1);
      expect(dylan.stoppedAt).toBe(perLayer.stoppedAt);
      expect(dylan.right).toBe(perLayer.right);
      expect(perLayer.calls - dylan.calls).toBeGreaterThanOrEqual(0);
      expect(perLayer.calls - dylan.calls).toBeLessThanOrEqual(1);
      saved += perLayer.calls - dylan.calls;
    }
    // Over 20 queries the per-answer check saved calls somewhere.
    expect(saved).toBeGreaterThan(0);
  });

  it('is deterministic: the same team seed gives the same outcomes', async () => {
    const [query] = generatedQueries(1);
    const first = await runMethod('dylan', simTeam(3), query!, 3);
    expect(await runMethod('dylan', simTeam(3), query!, 3)).toEqual(first);
  });
});
