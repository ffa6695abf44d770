import { beforeAll, describe, expect, it } from 'vitest';
import { adversarialCase, orderCountDistribution, perturbGold, rewordSlightly } from '../../bench/worfeval-cases.js';
import { formatWorkflowText } from '../../src/eval/format-workflow-text.js';
import { loadGold, type GoldRecord } from '../../src/eval/gold-data.js';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import { scoreWorkflow } from '../../src/eval/score-workflow.js';
import type { WorkflowText } from '../../src/eval/workflow-text.js';
import { mulberry32 } from '../../src/llm/seeded-random.js';
import { GOLD_DIR, FIXTURE_RECORDS } from '../eval/gold-path.js';

let gold: GoldRecord[];

beforeAll(async () => {
  gold = await loadGold(GOLD_DIR);
});

/** Valid means: the text form parses back to the same workflow (known nodes, no cycle, nothing skipped). */
function expectValid(workflow: WorkflowText): void {
  const parsed = parseWorkflowText(formatWorkflowText(workflow));
  expect(parsed.ok).toBe(true);
  if (parsed.ok) expect(parsed.workflow).toEqual(workflow);
}

describe('perturbGold', () => {
  it('gives a valid workflow with one node fewer for every gold record, the same for the same seed', () => {
    expect(gold).toHaveLength(FIXTURE_RECORDS);
    for (const [index, record] of gold.entries()) {
      const { workflow, steps } = perturbGold(record.workflow, index + 1);
      expectValid(workflow);
      const expectedNodes = record.workflow.nodes.length > 1 ? record.workflow.nodes.length - 1 : 1;
      expect(workflow.nodes).toHaveLength(expectedNodes);
      expect(steps[0]).toBe('relist');
      expect(perturbGold(record.workflow, index + 1)).toEqual({ workflow, steps });
    }
  });

  it('never scores the gold perfectly against its perturbation when a node was deleted', () => {
    const record = gold.find((entry) => entry.workflow.nodes.length >= 4)!;
    const { workflow } = perturbGold(record.workflow, 1);
    const exact = record.workflow.nodes.map((a) => workflow.nodes.map((b) => (a === b ? 1 : 0)));
    expect(scoreWorkflow(record.workflow, workflow, exact).r_chain).toBeLessThan(1);
  });
});

describe('rewordSlightly', () => {
  it('swaps one small word, or adds one word when there is none to swap', () => {
    const random = mulberry32(3);
    expect(rewordSlightly('go to fridge', random)).toBe('go into fridge');
    expect(rewordSlightly('open microwave', random)).toBe('open microwave first');
    const swapped = rewordSlightly('take the mug with the hand', random);
    const before = 'take the mug with the hand'.split(' ');
    const after = swapped.split(' ');
    expect(after).toHaveLength(before.length);
    expect(after.filter((word, index) => word !== before[index])).toHaveLength(1);
  });
});

describe('adversarialCase', () => {
  it('matches every node and keeps both graphs valid; with nothing toggled it scores 1', () => {
    for (const flip of [0, 0.2]) {
      const testCase = adversarialCase(5, { nodes: 30, density: 0.5, flip });
      expectValid(testCase.gold);
      expectValid(testCase.predicted);
      const score = scoreWorkflow(testCase.gold, testCase.predicted, testCase.similarity);
      expect(score.matched).toBe(30);
      expect(score.mcisExact).toBe(true);
      if (flip === 0) expect(score.f1_graph).toBe(1);
      else expect(score.f1_graph).toBeLessThan(1);
    }
  });
});

describe('orderCountDistribution', () => {
  it('gives cumulative percentages per bucket and the share above 100', () => {
    const { atMost, above } = orderCountDistribution([1, 1, 2, 6, 12, 30, 101, 101]);
    expect(atMost).toEqual([
      { bucket: 1, percent: 25 },
      { bucket: 5, percent: 37.5 },
      { bucket: 10, percent: 50 },
      { bucket: 20, percent: 62.5 },
      { bucket: 50, percent: 75 },
      { bucket: 100, percent: 75 },
    ]);
    expect(above).toBe(25);
  });
});
