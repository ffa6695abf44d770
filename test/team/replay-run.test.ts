/**
 * The DyLAN authors' recorded MMLU runs (test/fixtures/dylan-mmlu, a few queries per team) replayed through
 * Weft's team engine.
 */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { answerKey } from '../../src/team/llm-agent.js';
import { readDylanRecording } from '../../src/team/replay-files.js';
import {
  createReplayModel,
  createReplayRanker,
  NO_OPTION_AS_DYLAN,
  replayAgentNames,
  replayQueries,
} from '../../src/team/replay-model.js';
import { authorsFinalAnswer, recordedCallOrder, replayRecording, summarizeReplays } from '../../src/team/replay-run.js';

const fixture = (path: string): string => new URL(`../fixtures/dylan-mmlu/${path}`, import.meta.url).pathname;
const two = readDylanRecording(fixture('mmlu_optimal7_2/business_ethics_test_23.json'));
const three = readDylanRecording(fixture('mmlu_optimal7_3/abstract_algebra_test_33.json'));
const four = readDylanRecording(fixture('mmlu_optimal7_4/abstract_algebra_test_43.json'));
const seven = readDylanRecording(fixture('mmlu_optimal7_7/anatomy_test_73.json'));

async function rejection(promise: Promise<unknown>): Promise<WeftError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected a WeftError');
}

describe('the replay model', () => {
  const names = replayAgentNames(two);
  const model = createReplayModel(two, names);
  const queries = replayQueries(two);
  const call = (agent: string, step: number, query: number) =>
    model.generate({
      messages: [{ role: 'user', content: 'ignored' }],
      tag: { purpose: 'answer', key: answerKey(agent, step, queries[query]!) },
    });

  it('answers by agent, round and query, whatever order the calls come in', async () => {
    const second = await call('agent-2', 2, 2);
    const first = await call('agent-1', 1, 0);
    expect(second.text).toBe(two.queries[2]!.replies[1]![1]);
    expect(first.text).toBe(two.queries[0]!.replies[0]![0]);
  });

  it('fails with the file, the query line, the agent and the round when the recording has no reply', async () => {
    const error = await rejection(call('agent-1', 2, 0));
    expect(error.code).toBe('SCRIPT_EXHAUSTED');
    expect(error.location).toEqual({ file: two.file, line: 1, field: 'agent 1 (agent-1) round 2' });
  });

  it('refuses ranker calls and calls it cannot place, instead of inventing text', async () => {
    const rank = await rejection(
      model.generate({ messages: [{ role: 'user', content: 'rank' }], tag: { purpose: 'rank', key: 'rank/q-1' } }),
    );
    expect(rank.message).toContain('no ranker text');
    const unknown = await rejection(call('agent-9', 1, 0));
    expect(unknown.code).toBe('SCRIPT_EXHAUSTED');
  });

  it('replays the reformation as the agents that answered in round 3, at the cost of one call', async () => {
    const fourNames = replayAgentNames(four);
    const ranker = createReplayRanker(four, fourNames);
    const query = replayQueries(four)[3]!;
    const responses = fourNames.map((agent) => ({ agent, answer: 'A', text: '' }));
    const ranked = await ranker.rank(query, responses, 2);
    const expected = four.queries[3]!.replies.flatMap((rounds, agent) =>
      rounds[2] !== null ? [fourNames[agent]!] : [],
    );
    expect(ranked.ranking).toEqual(expected);
    expect(ranked.calls).toBe(1);
    const never = await rejection(ranker.rank(replayQueries(four)[0]!, responses, 2));
    expect(never.location).toEqual({ file: four.file, line: 1, field: 'ranker' });
  });
});

describe('replaying the recorded runs through the engine', () => {
  it("two agents: every query takes exactly the authors' number of replies, and the .txt total", async () => {
    const report = await replayRecording(two);
    expect(report.queries.map((q) => q.weftReplies)).toEqual([2, 2, 4, 6]);
    expect(report.queries.map((q) => q.recordedReplies)).toEqual([2, 2, 4, 6]);
    const total = report.queries.reduce((sum, q) => sum + (q.weftReplies ?? 0), 0);
    expect(total).toBe(two.figures!.totalReplies);
    expect(summarizeReplays([report]).countMismatches).toEqual([]);
  });

  it("two agents: Weft's answers are the authors' and right where the .txt says theirs were", async () => {
    const report = await replayRecording(two);
    // Line 2: both replies name no option; the authors' code stops on that "consensus" (None == None).
    expect(report.queries.map((q) => q.weftAnswer)).toEqual(['D', NO_OPTION_AS_DYLAN, 'C', 'C']);
    expect(report.queries.map((q) => q.recordedAnswer)).toEqual(['D', NO_OPTION_AS_DYLAN, 'C', undefined]);
    expect(report.queries[0]!.weftCorrect).toBe(true);
    expect(report.queries.slice(1, 3).map((q) => q.weftCorrect)).toEqual([false, false]);
    // Line 4 ends in a tie the authors broke by an order their recording does not keep.
    expect(report.queries[3]!.weftCorrect).toBeUndefined();
    // Round 1 only: importance is 1/2 each, as recorded.
    expect(report.queries[0]!.importanceGap).toBe(0);
  });

  it("Weft's own reading cannot stop on two replies that name no option, and says which reply it lacks", async () => {
    const report = await replayRecording(two, { reading: 'weft' });
    expect(report.queries[1]!.weftReplies).toBeUndefined();
    expect(report.queries[1]!.missingReply).toBe('agent 1 (agent-1) round 2');
    expect(report.queries[1]!.error).toContain(`${two.file}:2`);
  });

  it("three agents: every query takes exactly the authors' number of replies", async () => {
    const report = await replayRecording(three);
    expect(report.queries.map((q) => q.weftReplies)).toEqual([3, 6, 9]);
    expect(report.queries.reduce((sum, q) => sum + q.weftReplies!, 0)).toBe(three.figures!.totalReplies);
    expect(report.queries.map((q) => q.weftAnswer)).toEqual(
      report.queries.map((q) => authorsFinalAnswer(three.queries[q.line - 1]!)),
    );
  });

  it.each([
    ['four', four, [4, 7, 8, 11, 3]],
    ['seven', seven, [5, 17, 7]],
  ])(
    "%s agents, in an order consistent with the recording: every query takes exactly the authors' replies",
    async (_, recording, counts) => {
      const report = await replayRecording(recording);
      expect(report.order).toBe('recorded');
      expect(report.queries.map((q) => q.weftReplies)).toEqual(counts);
      expect(report.queries.map((q) => q.recordedReplies)).toEqual(counts);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(recording.figures!.totalReplies);
      // Answers agree wherever the authors' is determined.
      for (const q of report.queries) if (q.recordedAnswer !== undefined) expect(q.weftAnswer).toBe(q.recordedAnswer);
    },
  );

  it('recordedCallOrder puts the stopping consensus last and the agents never called after it', () => {
    const names = replayAgentNames(four);
    const order = recordedCallOrder(four.queries[4]!, names, 'authors', replayQueries(four)[4]!)(1, names);
    const called = four.queries[4]!.replies.flatMap((rounds, agent) => (rounds[0] !== null ? [names[agent]!] : []));
    // Line 5: three agreeing answers in round 1, the fourth agent never called.
    expect(order.slice(0, 3).sort()).toEqual([...called].sort());
    expect(order).toHaveLength(4);
    expect(called).not.toContain(order[3]);
  });

  it("four agents in the engine's own order, checked per layer: the layers the authors completed replay exactly", async () => {
    const report = await replayRecording(four, { order: 'engine', engine: { stopCheck: 'layer' } });
    // Lines 1, 3 and 4: round 1 complete; rounds 1–2 complete; rounds 1–2, the ranker and two kept agents.
    expect([0, 2, 3].map((index) => report.queries[index]!.weftReplies)).toEqual([4, 8, 11]);
    // Lines 2 and 5 stopped mid-layer: a whole layer needs replies the authors never asked for.
    expect(report.queries[1]!.missingReply).toMatch(/^agent \d \(agent-\d\) round 2$/);
    expect(report.queries[4]!.missingReply).toMatch(/^agent \d \(agent-\d\) round 1$/);
  });

  it("four agents in the engine's own order, checked per answer: the order-free query matches exactly", async () => {
    const report = await replayRecording(four, { order: 'engine' });
    expect(report.queries.map((q) => q.orderFree)).toEqual([false, false, false, true, false]);
    expect(report.queries[3]!.weftReplies).toBe(11);
    expect(report.queries[3]!.keptByRanker).toBe(2);
  });

  // In its own seeded order the engine can only be checked against every order of the authors' calls: it stops
  // in the authors' stopping round after no more calls, or its order reaches, in that round, an agent the
  // authors never called.
  it.each([
    ['four', four],
    ['seven', seven],
  ])(
    "%s agents in the engine's own order: every query is what some order of the authors' calls gives",
    async (_, recording) => {
      const report = await replayRecording(recording, { order: 'engine' });
      for (const query of report.queries) {
        expect(query.sameUpToOrder).toBe(true);
        expect(query.weftStopRound).toBe(query.recordedStopRound);
        if (query.weftReplies !== undefined) expect(query.weftReplies).toBeLessThanOrEqual(query.recordedReplies);
        else expect(query.missingReply).toMatch(new RegExp(`round ${query.recordedStopRound}$`));
      }
    },
  );
});
