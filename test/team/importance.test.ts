import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importanceScores, peerWeights, type ImportanceNode } from '../../src/team/importance.js';

const node = (
  agent: string,
  answer: string,
  peers: string[] = [],
  ratings: number[] = [],
  tests?: { passed: number; total: number },
): ImportanceNode => ({
  agent,
  answer,
  peers,
  ratings,
  ...(tests ? { tests } : {}),
});

const sum = (record: Record<string, number>): number => Object.values(record).reduce((a, b) => a + b, 0);

describe('peerWeights', () => {
  it('normalises ratings to sum 1, in the order of the peers', () => {
    expect(peerWeights({ peers: ['b', 'a'], ratings: [3, 1] }, { a: 0, b: 0 })).toEqual([
      ['b', 0.75],
      ['a', 0.25],
    ]);
  });

  it('uses equal weights when the ratings do not fit the peers', () => {
    expect(peerWeights({ peers: ['a', 'b'], ratings: [5] }, { a: 0, b: 0 })).toEqual([
      ['a', 0.5],
      ['b', 0.5],
    ]);
    expect(peerWeights({ peers: ['a', 'b'], ratings: [0, 0] }, { a: 0, b: 0 })).toEqual([
      ['a', 0.5],
      ['b', 0.5],
    ]);
    expect(peerWeights({ peers: ['a', 'b'], ratings: [Number.NaN, 2] }, { a: 0, b: 0 })).toEqual([
      ['a', 0.5],
      ['b', 0.5],
    ]);
  });

  it('ignores peers missing from the previous layer, and spreads over it when none is known', () => {
    expect(peerWeights({ peers: ['a', 'ghost'], ratings: [2, 5] }, { a: 0, b: 0 })).toEqual([['a', 1]]);
    expect(peerWeights({ peers: ['ghost'], ratings: [5] }, { a: 0, b: 0 })).toEqual([
      ['a', 0.5],
      ['b', 0.5],
    ]);
  });
});

describe('importanceScores', () => {
  it('propagates backwards through normalised ratings (hand-computed)', () => {
    // Layer 2: x and y agree with "7" → 1/2 each; z 0.
    // x rates (a, b) 4, 1 → .8/.2; y rates (b, a) 1, 1 → .5/.5; z's ratings carry nothing.
    // I(1, a) = .5·.8 + .5·.5 = .65; I(1, b) = .5·.2 + .5·.5 = .35.
    const layers = [
      [node('a', '7'), node('b', '8')],
      [node('x', '7', ['a', 'b'], [4, 1]), node('y', '7.0', ['b', 'a'], [1, 1]), node('z', '9', ['a', 'b'], [5, 1])],
    ];
    const scores = importanceScores(layers, '7', 'exact');
    expect(scores.byLayer[1]).toEqual({ x: 0.5, y: 0.5, z: 0 });
    expect(scores.byLayer[0]!.a).toBeCloseTo(0.65, 12);
    expect(scores.byLayer[0]!.b).toBeCloseTo(0.35, 12);
    expect(scores.total.a).toBeCloseTo(0.65, 12);
    expect(scores.total.x).toBe(0.5);
  });

  it('sums an agent over the layers it appears in', () => {
    const layers = [[node('a', '1'), node('b', '2')], [node('a', '1', ['a', 'b'], [1, 3])]];
    const scores = importanceScores(layers, '1', 'exact');
    // Layer 2: a → 1. a's ratings (a 1, b 3) → .25/.75.
    expect(scores.total).toEqual({ a: 1.25, b: 0.75 });
  });

  it('spreads the last layer over every node when none agrees with the final answer', () => {
    const scores = importanceScores([[node('a', '1'), node('b', '2')]], '3', 'exact');
    expect(scores.byLayer[0]).toEqual({ a: 0.5, b: 0.5 });
  });

  it('credits code nodes whose own tests all passed, even when worded differently', () => {
    const layer = [
      node('w', 'def f(x): return x+1'),
      node('runner', 'def f(y):\n  return y + 1', [], [], { passed: 3, total: 3 }),
      node('v', 'print(1)', [], [], { passed: 1, total: 3 }),
    ];
    expect(importanceScores([layer], 'def f(x): return x+1', 'code').byLayer[0]).toEqual({ w: 0.5, runner: 0.5, v: 0 });
  });

  it('gives nothing for no layers', () => {
    expect(importanceScores([], 'x', 'exact')).toEqual({ byLayer: [], total: {} });
  });

  it('keeps every layer summing to 1 within 1e-9 over random layer tables', () => {
    const pool = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'];
    const answer = fc.constantFrom('x', 'y', 'z', '');
    const tableArb = fc
      .array(fc.subarray(pool, { minLength: 1 }), { minLength: 1, maxLength: 6 })
      .chain((agentLayers) =>
        fc.tuple(
          ...agentLayers.map((agents, t) =>
            fc.tuple(
              ...agents.map((agent) => {
                const previous = t === 0 ? [] : agentLayers[t - 1]!;
                const peersArb =
                  t === 0 ? fc.constant([] as string[]) : fc.shuffledSubarray(previous, { minLength: 1 });
                return fc.record({
                  agent: fc.constant(agent),
                  answer,
                  peers: peersArb,
                  // Mostly well-formed ratings, sometimes a wrong count or zeros.
                  ratingSeed: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 7 }),
                });
              }),
            ),
          ),
        ),
      );
    fc.assert(
      fc.property(tableArb, fc.constantFrom('x', 'y', 'q'), (table, final) => {
        const layers: ImportanceNode[][] = table.map((layer) =>
          layer.map(({ agent, answer: a, peers, ratingSeed }) => ({
            agent,
            answer: a,
            peers,
            ratings:
              ratingSeed.length >= peers.length && ratingSeed.length % 3 !== 0
                ? ratingSeed.slice(0, peers.length)
                : ratingSeed,
          })),
        );
        const scores = importanceScores(layers, final, 'exact');
        expect(scores.byLayer).toHaveLength(layers.length);
        scores.byLayer.forEach((layer, t) => {
          expect(Object.keys(layer).sort()).toEqual(layers[t]!.map((n) => n.agent).sort());
          expect(Math.abs(sum(layer) - 1)).toBeLessThan(1e-9);
          for (const value of Object.values(layer)) expect(value).toBeGreaterThanOrEqual(0);
        });
        expect(Math.abs(sum(scores.total) - layers.length)).toBeLessThan(1e-9);
      }),
      { numRuns: 300 },
    );
  });
});
