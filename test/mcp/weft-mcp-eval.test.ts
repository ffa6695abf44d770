/**
 * weft_eval over the protocol: WorfEval of a pair given inline (WorfBench text, an executable workflow object, a
 * Weft plan object) or as files, a bounded predictions file against WorfBench gold, and every bad input as a tool
 * error naming its argument.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLD_DIR } from '../eval/gold-path.js';
import { callError, callJson, type McpHarness, startMcp } from './mcp-harness.js';

const WORKFLOWS = 'test/fixtures/workflows';
const GOLD_TEXT =
  'Node:\n1: search flights to Paris\n2: book a hotel room\n3: pay the bill\nEdge: (START,1) (START,2) (1,3) (2,3) (3,END)';

interface PairScore {
  similarity: string;
  beta: number;
  f1_chain: number;
  f1_graph: number;
  p_chain: number;
  r_chain: number;
  matched: number;
  gold: { from: string; steps: number; text: string; file?: string };
  predicted: { from: string; steps: number; text: string; file?: string };
}

let mcp: McpHarness;
beforeAll(async () => {
  mcp = await startMcp();
});
afterAll(async () => {
  await mcp.close();
});

describe('weft_eval, one pair', () => {
  it('scores identical WorfBench texts as 1, and a prediction missing a step by its precision and recall', async () => {
    const same = await callJson<PairScore>(mcp.client, 'weft_eval', { predicted: GOLD_TEXT, gold: GOLD_TEXT });
    expect(same).toMatchObject({ f1_chain: 1, f1_graph: 1, matched: 3, similarity: expect.stringMatching(/lexical/) });
    expect(same.gold).toMatchObject({ from: 'text', steps: 3 });

    // Two of the three gold steps, in an order the gold allows: precision 1, recall 2/3.
    const partial = await callJson<PairScore>(mcp.client, 'weft_eval', {
      predicted: 'Node:\n1: search flights to Paris\n2: pay the bill\nEdge: (START,1) (1,2) (2,END)',
      gold: GOLD_TEXT,
    });
    expect(partial.matched).toBe(2);
    expect(partial.p_chain).toBe(1);
    expect(partial.r_chain).toBeCloseTo(2 / 3, 10);
    expect(partial.f1_chain).toBeCloseTo(0.8, 10);
    expect(partial.f1_graph).toBeCloseTo(0.8, 10);
  });

  it('takes an executable workflow inline or as a file, as `weft eval pred --gold gold` does', async () => {
    const file = `${WORKFLOWS}/sum-to-n.workflow.json`;
    const inline = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const score = await callJson<PairScore>(mcp.client, 'weft_eval', { predicted: inline, goldFile: file });
    expect(score).toMatchObject({ f1_chain: 1, f1_graph: 1 });
    expect(score.predicted.from).toBe('workflow');
    expect(score.gold).toMatchObject({ from: 'workflow', file });

    // Against a different workflow: a real comparison, below 1.
    const other = await callJson<PairScore>(mcp.client, 'weft_eval', {
      predictedFile: file,
      goldFile: `${WORKFLOWS}/every-kind.workflow.json`,
    });
    expect(other.f1_graph).toBeLessThan(1);
  });

  it("scores weft_plan's plan (a Weft plan object) against its own WorfBench text as 1", async () => {
    const { plan } = await callJson<{ plan: Record<string, unknown> }>(mcp.client, 'weft_plan', {
      task: 'Write a short report on tea',
    });
    const asText = await callJson<PairScore>(mcp.client, 'weft_eval', { predicted: plan, gold: plan });
    expect(asText.predicted.from).toBe('plan');
    const score = await callJson<PairScore>(mcp.client, 'weft_eval', { predicted: plan, gold: asText.gold.text });
    expect(score).toMatchObject({ f1_chain: 1, f1_graph: 1 });
    expect(score.predicted.steps).toBe((plan.subtasks as unknown[]).length);

    // The same as files: a plan (`weft plan --out`) and WorfBench text.
    const planFile = join(mcp.home, 'plan.json');
    const textFile = join(mcp.home, 'gold.txt');
    writeFileSync(planFile, JSON.stringify(plan));
    writeFileSync(textFile, asText.gold.text);
    const files = await callJson<PairScore>(mcp.client, 'weft_eval', { predictedFile: planFile, goldFile: textFile });
    expect(files).toMatchObject({ f1_chain: 1, f1_graph: 1 });
    expect(files.predicted).toMatchObject({ from: 'plan', file: planFile });
    expect(files.gold).toMatchObject({ from: 'text', file: textFile });
  });

  it('answers bad input with a tool error that names the argument', async () => {
    const { client } = mcp;
    expect(await callError(client, 'weft_eval', { gold: GOLD_TEXT })).toMatch(
      /BAD_INPUT: predicted: give the predicted/,
    );
    expect(await callError(client, 'weft_eval', { predicted: GOLD_TEXT })).toMatch(/gold: give the gold workflow/);
    expect(
      await callError(client, 'weft_eval', { predicted: GOLD_TEXT, predictedFile: 'x.txt', gold: GOLD_TEXT }),
    ).toContain('predicted: give predicted or predictedFile, not both');
    expect(await callError(client, 'weft_eval', { predicted: 'just some prose', gold: GOLD_TEXT })).toMatch(
      /not usable WorfBench workflow text\n {2}- line 1:1 predicted: no node list found/,
    );
    const badWorkflow = await callError(client, 'weft_eval', {
      predicted: { name: 'w', nodes: [{ id: 'a', kind: 'bogus' }], edges: [] },
      gold: GOLD_TEXT,
    });
    expect(badWorkflow).toContain('predicted: invalid executable workflow');
    expect(badWorkflow).toContain('predicted.nodes[0].kind');
    const badPlan = await callError(client, 'weft_eval', { predicted: GOLD_TEXT, gold: { task: 't', subtasks: 3 } });
    expect(badPlan).toContain('gold: invalid Weft plan');
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { n: deep };
    expect(await callError(client, 'weft_eval', { predicted: { nodes: [deep] }, gold: GOLD_TEXT })).toContain(
      'predicted: nested deeper than 100 levels',
    );
    expect(await callError(client, 'weft_eval', { predicted: GOLD_TEXT, gold: { steps: [] } })).toContain(
      'gold: expected WorfBench text, an executable workflow',
    );
    expect(
      await callError(client, 'weft_eval', { predicted: GOLD_TEXT, goldFile: join(mcp.home, 'missing.txt') }),
    ).toMatch(/cannot read the goldFile file: no such file/);
    expect(await callError(client, 'weft_eval', { predicted: GOLD_TEXT, gold: GOLD_TEXT, samples: 3 })).toContain(
      'samples: applies only with predictionsFile',
    );
    // The input schema: out of range, named by the SDK's validation.
    expect(await callError(client, 'weft_eval', { predicted: GOLD_TEXT, gold: GOLD_TEXT, beta: 2 })).toContain('beta');
    expect(await callError(client, 'weft_eval', { predicted: 42, gold: GOLD_TEXT })).toContain('predicted');
    expect(
      await callError(client, 'weft_eval', { predicted: GOLD_TEXT, gold: GOLD_TEXT, similarity: 'bogus:thing' }),
    ).toContain('BAD_INPUT: similarity: Invalid similarity spec');
  });

  it('never answers the credentials of an embedding server it could not reach', async () => {
    for (const similarity of [
      'openai-compatible:http://user:hunter2@127.0.0.1:9/v1#m',
      'openai-compatible:http://127.0.0.1:9/v1?api_key=hunter2#m',
      'openai-compatible:http://127.0.0.1:9/v1?key=hunter2#m',
    ]) {
      const answer = await callError(mcp.client, 'weft_eval', { predicted: GOLD_TEXT, gold: GOLD_TEXT, similarity });
      expect(answer).toMatch(/^PROVIDER: /);
      expect(answer).not.toContain('hunter2');
    }
  });
});

describe('weft_eval, a predictions file', () => {
  it('scores gold answers as 1 and lists a bounded number of samples and skips', async () => {
    const gold = join(GOLD_DIR, 'os.json');
    const records = JSON.parse(readFileSync(gold, 'utf8')) as {
      id: string;
      conversations: { role: string; content: string }[];
    }[];
    const lines = records
      .slice(0, 3)
      .map((record) => JSON.stringify({ id: record.id, output: record.conversations.at(-1)!.content }));
    const predictions = join(mcp.home, 'predictions.jsonl');
    writeFileSync(predictions, `${[...lines, 'not json', '{"id": 3}'].join('\n')}\n`);
    const report = await callJson<{
      count: number;
      skipped: number;
      f1_chain: number;
      f1_graph: number;
      samples: unknown[];
      skips: unknown[];
      listed: { samples: number; skips: number };
      missing: number;
    }>(mcp.client, 'weft_eval', { predictionsFile: predictions, goldFile: gold, samples: 1 });
    expect(report).toMatchObject({ count: 3, skipped: 2, f1_chain: 1, f1_graph: 1, missing: records.length - 3 });
    expect(report.samples).toHaveLength(1);
    expect(report.skips).toHaveLength(1);
    expect(report.listed).toEqual({ samples: 1, skips: 1 });
  });

  it('refuses a file over the bound, and predictionsFile with an inline side or without goldFile', async () => {
    const gold = join(GOLD_DIR, 'os.json');
    const big = join(mcp.home, 'big.jsonl');
    writeFileSync(big, '{}\n'.repeat(10_001));
    expect(await callError(mcp.client, 'weft_eval', { predictionsFile: big, goldFile: gold })).toContain(
      '10001 prediction lines; weft_eval scores at most 10000',
    );
    expect(await callError(mcp.client, 'weft_eval', { predictionsFile: big })).toContain(
      'goldFile: predictionsFile is scored against goldFile',
    );
    expect(
      await callError(mcp.client, 'weft_eval', { predictionsFile: big, goldFile: gold, predicted: GOLD_TEXT }),
    ).toContain('predicted: does not go with predictionsFile');
    const empty = join(mcp.home, 'empty.jsonl');
    writeFileSync(empty, '');
    expect(await callError(mcp.client, 'weft_eval', { predictionsFile: empty, goldFile: gold })).toContain(
      'no predictions',
    );
  });
});
