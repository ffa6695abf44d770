/**
 * The WorfEval laws on every WorfBench gold record at hand (the repository's subset, and all 1,746
 * records when the optional benchmark data is at hand: WEFT_WORFBENCH_DATA), with the default lexical similarity.
 */
import { describe, expect, it } from 'vitest';
import { createLexicalSimilarity } from '../../src/eval/lexical-similarity.js';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import { addRandomEdge, deleteNode, relistWorkflowText } from '../../src/eval/perturb-workflow-text.js';
import { countTopologicalOrders } from '../../src/eval/reference-orders.js';
import { scoreWorkflow } from '../../src/eval/score-workflow.js';
import type { WorkflowText } from '../../src/eval/workflow-text.js';
import { randomFrom } from '../../src/llm/seeded-random.js';
import { goldSets, loadGoldAnswers } from './gold-path.js';

describe.each(goldSets())('WorfEval laws on WorfBench gold records ($name)', (set) => {
  const records = loadGoldAnswers(set.dir);
  const parsed = records.map((record) => ({ ...record, result: parseWorkflowText(record.answer) }));
  const usable = parsed.flatMap((record) =>
    record.result.ok ? [{ id: record.id, workflow: record.result.workflow }] : [],
  );
  const lexical = createLexicalSimilarity({ corpus: usable.flatMap((record) => record.workflow.nodes) });

  const score = (gold: WorkflowText, predicted: WorkflowText) =>
    scoreWorkflow(
      gold,
      predicted,
      gold.nodes.map((a) => predicted.nodes.map((b) => lexical.similarity(a, b))),
    );

  /** The ids for which `law` fails, so a failure names the records. */
  function violations(law: (gold: WorkflowText, id: string) => boolean): string[] {
    return usable.filter(({ id, workflow }) => !law(workflow, id)).map(({ id }) => id);
  }

  it('has every record and the parser reads every one', () => {
    expect(records).toHaveLength(set.records);
    expect(parsed.filter((record) => !record.result.ok).map((record) => record.id)).toEqual([]);
  });

  it('gold against itself gives f1_chain = f1_graph = 1', () => {
    expect(
      violations((gold) => {
        const result = score(gold, gold);
        return result.f1_chain === 1 && result.f1_graph === 1;
      }),
    ).toEqual([]);
  });

  it('relisting the nodes in another topological order keeps f1_graph at 1, and f1_chain at 1 up to 20 orders', () => {
    let relistedDifferently = 0;
    let chainChecked = 0;
    expect(
      violations((gold, id) => {
        const relisted = relistWorkflowText(gold, randomFrom('relist', id));
        if (relisted.nodes.some((text, index) => text !== gold.nodes[index])) relistedDifferently++;
        const result = score(gold, relisted);
        if (countTopologicalOrders(gold, 21) > 20) return result.f1_graph === 1;
        chainChecked++;
        return result.f1_graph === 1 && result.f1_chain === 1;
      }),
    ).toEqual([]);
    // The law must not pass vacuously: many gold graphs have parallel nodes to relist.
    expect(relistedDifferently).toBeGreaterThan(set.records * 0.17);
    expect(chainChecked).toBeGreaterThan(set.records * 0.85);
  });

  it('deleting one node lowers recall', () => {
    expect(
      violations((gold, id) => {
        const node = 1 + Math.floor(randomFrom('delete', id)() * gold.nodes.length);
        const result = score(gold, deleteNode(gold, node));
        return result.r_chain < 1 && result.r_graph < 1;
      }),
    ).toEqual([]);
  });

  it('adding an edge to the gold lowers f1_graph below 1, and never changes f1_chain', () => {
    let added = 0;
    expect(
      violations((gold, id) => {
        const more = addRandomEdge(gold, randomFrom('add', id));
        if (!more) return true;
        added++;
        const result = score(gold, more);
        return result.f1_graph < 1 && result.f1_chain === 1;
      }),
    ).toEqual([]);
    expect(added).toBeGreaterThan(set.records * 0.95);
  });

  it('adding an edge the gold lacks never raises f1_graph of an imperfect prediction', () => {
    expect(
      violations((gold, id) => {
        const random = randomFrom('imperfect', id);
        let predicted = relistWorkflowText(gold, random);
        if (predicted.nodes.length > 1)
          predicted = deleteNode(predicted, 1 + Math.floor(random() * predicted.nodes.length));
        // The relisted prediction's numbers differ from the gold's; compare texts to keep the added edge out of the gold.
        const goldEdges = new Set(gold.edges.map(([from, to]) => `${endText(gold, from)}>${endText(gold, to)}`));
        const more = addRandomEdge(
          predicted,
          random,
          ([from, to]) => !goldEdges.has(`${endText(predicted, from)}>${endText(predicted, to)}`),
        );
        if (!more) return true;
        return score(gold, more).f1_graph <= score(gold, predicted).f1_graph;
      }),
    ).toEqual([]);
  });
});

function endText(workflow: WorkflowText, end: number | 'START' | 'END'): string {
  return typeof end === 'number' ? (workflow.nodes[end - 1] ?? '') : end;
}
