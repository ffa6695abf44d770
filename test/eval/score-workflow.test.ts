import { describe, expect, it } from 'vitest';
import { scoreWithSimilarity, scoreWorkflow } from '../../src/eval/score-workflow.js';
import { similarityFromFunction } from '../../src/eval/similarity.js';
import { chain, exactSimilarity, workflow } from './text-workflows.js';

const score = (gold: ReturnType<typeof chain>, predicted: ReturnType<typeof chain>) =>
  scoreWorkflow(gold, predicted, exactSimilarity(gold, predicted));

// a → {b, c} → d
const DIAMOND = workflow(
  ['a', 'b', 'c', 'd'],
  [
    ['S', 1],
    [1, 2],
    [1, 3],
    [2, 4],
    [3, 4],
    [4, 'E'],
  ],
);

describe('scoreWorkflow: hand-computed cases (docs/algorithms.md#worfeval-scoring)', () => {
  it('gold against itself scores 1 on both measures', () => {
    const result = score(DIAMOND, DIAMOND);
    expect(result).toMatchObject({
      f1_chain: 1,
      f1_graph: 1,
      p_chain: 1,
      r_chain: 1,
      p_graph: 1,
      r_graph: 1,
      matched: 4,
      chainLength: 4,
      graphNodes: 4,
      mcisExact: true,
    });
    expect(result.ordersChecked).toBe(2);
  });

  it('a chain predicted for a diamond: the chain is one of its orders (f1_chain 1), the graph keeps 2 of 4 nodes', () => {
    // Conflicts: a–c (a→c only in gold), b–c (b→c only in the prediction), b–d (b→d only in gold): a path of 4
    // pairs, whose largest conflict-free set has 2.
    const result = score(DIAMOND, chain(['a', 'b', 'c', 'd']));
    expect(result).toMatchObject({
      f1_chain: 1,
      chainLength: 4,
      graphNodes: 2,
      p_graph: 0.5,
      r_graph: 0.5,
      f1_graph: 0.5,
    });
  });

  it('a diamond predicted for a chain: the chain order a,b,c,d has an LIS of 4 against the only gold order', () => {
    const result = score(chain(['a', 'b', 'c', 'd']), DIAMOND);
    expect(result.f1_chain).toBe(1);
    expect(result.f1_graph).toBe(0.5);
  });

  it('an extra predicted node lowers precision only for the chain, and breaks the induced edge a→b', () => {
    const gold = chain(['a', 'b', 'c']);
    const predicted = chain(['a', 'x', 'b', 'c']);
    const result = score(gold, predicted);
    expect(result.matched).toBe(3);
    expect(result.p_chain).toBe(3 / 4);
    expect(result.r_chain).toBe(1);
    expect(result.f1_chain).toBeCloseTo((2 * 0.75) / 1.75, 12);
    // Induced on {a, b, c} the prediction has only b→c: a and b disagree, so k = 2.
    expect(result.graphNodes).toBe(2);
    expect(result.p_graph).toBe(2 / 4);
    expect(result.r_graph).toBe(2 / 3);
    expect(result.f1_graph).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 12);
  });

  it('a missing edge costs one node of the common subgraph and nothing in the chain', () => {
    const predicted = workflow(
      ['a', 'b', 'c', 'd'],
      [
        ['S', 1],
        [1, 2],
        [1, 3],
        [2, 4],
        [4, 'E'],
      ],
    );
    const result = score(DIAMOND, predicted);
    expect(result.f1_chain).toBe(1);
    expect(result.graphNodes).toBe(3);
    expect(result.f1_graph).toBe(0.75);
  });

  it('a node that lost its START edge is out of the subgraph: START and END are anchored', () => {
    const predicted = workflow(
      ['a', 'b'],
      [
        [1, 2],
        [2, 'E'],
      ],
    );
    const result = score(chain(['a', 'b']), predicted);
    expect(result.graphNodes).toBe(1);
    expect(result.f1_graph).toBe(0.5);
  });

  it('no match at all scores 0, not 1/|V|', () => {
    const result = score(chain(['a', 'b', 'c']), chain(['x', 'y']));
    expect(result).toMatchObject({
      matched: 0,
      f1_chain: 0,
      f1_graph: 0,
      p_chain: 0,
      r_chain: 0,
      p_graph: 0,
      r_graph: 0,
      chainLength: 0,
      graphNodes: 0,
    });
  });

  it('relisting the nodes in another topological order and renumbering keeps both scores at 1 (the reference code gives 0.4 here)', () => {
    const relisted = workflow(
      ['a', 'c', 'b', 'd'],
      [
        ['S', 1],
        [1, 2],
        [1, 3],
        [2, 4],
        [3, 4],
        [4, 'E'],
      ],
    );
    const result = score(DIAMOND, relisted);
    expect(result.f1_chain).toBe(1);
    expect(result.f1_graph).toBe(1);
  });

  it('a reversed chain keeps one node in order and no edge', () => {
    const result = score(chain(['a', 'b', 'c']), chain(['c', 'b', 'a']));
    expect(result.chainLength).toBe(1);
    // Only b keeps its (absent) START and END edges; a and c swap theirs.
    expect(result.graphNodes).toBe(1);
  });

  it('repeated node texts pair in order, so a gold with duplicates still scores 1 against itself', () => {
    const gold = chain(['go to fridge', 'open fridge', 'take apple', 'go to fridge', 'close fridge']);
    expect(score(gold, gold)).toMatchObject({ f1_chain: 1, f1_graph: 1 });
  });

  it('a gold chain that is not a topological order of its graph still scores 1 against itself', () => {
    // 1 is listed before its parent 2.
    const gold = workflow(
      ['later', 'first'],
      [
        ['S', 2],
        [2, 1],
        [1, 'E'],
      ],
    );
    const result = score(gold, gold);
    expect(result.f1_chain).toBe(1);
    expect(result.f1_graph).toBe(1);
    expect(result.ordersChecked).toBe(2);
  });

  it('f1_chain uses the best of the gold orders, up to maxOrders', () => {
    // Four parallel nodes: 24 orders. Predicting them reversed needs the order d,c,b,a, which is the last one
    // enumerated (smallest number first), so it is found with all 24 but not with 20.
    const gold = workflow(
      ['a', 'b', 'c', 'd'],
      [
        ['S', 1],
        ['S', 2],
        ['S', 3],
        ['S', 4],
        [1, 'E'],
        [2, 'E'],
        [3, 'E'],
        [4, 'E'],
      ],
    );
    const predicted = workflow(
      ['d', 'c', 'b', 'a'],
      [
        ['S', 1],
        ['S', 2],
        ['S', 3],
        ['S', 4],
        [1, 'E'],
        [2, 'E'],
        [3, 'E'],
        [4, 'E'],
      ],
    );
    expect(scoreWorkflow(gold, predicted, exactSimilarity(gold, predicted), { maxOrders: 24 }).chainLength).toBe(4);
    const capped = scoreWorkflow(gold, predicted, exactSimilarity(gold, predicted));
    expect(capped.ordersChecked).toBe(20);
    expect(capped.chainLength).toBe(3);
    expect(capped.f1_graph).toBe(1);
  });

  it('β decides what can match: 0.6 is in, just below is out', () => {
    const gold = chain(['a']);
    const predicted = chain(['b']);
    expect(scoreWorkflow(gold, predicted, [[0.6]]).matched).toBe(1);
    expect(scoreWorkflow(gold, predicted, [[0.5999]]).matched).toBe(0);
    expect(scoreWorkflow(gold, predicted, [[0.5999]], { beta: 0.5 }).f1_graph).toBe(1);
  });

  it('scoreWithSimilarity asks the similarity for the gold × predicted matrix', async () => {
    const calls: string[] = [];
    const similarity = similarityFromFunction('first letter', (a, b) => {
      calls.push(`${a}|${b}`);
      return a[0] === b[0] ? 1 : 0;
    });
    const result = await scoreWithSimilarity(
      chain(['alpha', 'beta']),
      chain(['apple', 'banana', 'cherry']),
      similarity,
    );
    expect(calls).toHaveLength(6);
    expect(calls[0]).toBe('alpha|apple');
    expect(result.matched).toBe(2);
    expect(result.r_chain).toBe(1);
    expect(result.p_chain).toBe(2 / 3);
  });
});
