import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { readDylanRecording } from '../../src/team/replay-files.js';
import {
  answeredIn,
  parseDylanRecording,
  rankerRan,
  recordedReplies,
  topRoles,
} from '../../src/team/replay-recording.js';

const fixture = (path: string): string => new URL(`../fixtures/dylan-mmlu/${path}`, import.meta.url).pathname;

function thrown(run: () => unknown): WeftError {
  try {
    run();
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected a WeftError');
}

describe('parseDylanRecording on the recorded fixture', () => {
  it('reads the team size, rounds, queries and the .txt figures of a two-agent run', () => {
    const recording = readDylanRecording(fixture('mmlu_optimal7_2/business_ethics_test_23.json'));
    expect(recording.subject).toBe('business_ethics_test');
    expect(recording.agents).toBe(2);
    expect(recording.rounds).toBe(3);
    expect(recording.queries.map((q) => q.line)).toEqual([1, 2, 3, 4]);
    expect(recording.figures?.correct).toEqual([true, false, false, false]);
    expect(recording.figures?.accuracy).toBe(0.25);
    expect(recording.figures?.totalReplies).toBe(14);
    expect(recording.figures?.importance).toHaveLength(4);
    expect(recording.figures?.meanImportance).toHaveLength(6);
    expect(recording.issues).toEqual([]);
    // Replies per query: round 1 only, round 1 only, two rounds, three rounds.
    expect(recording.queries.map((q) => recordedReplies(q, 2))).toEqual([2, 2, 4, 6]);
  });

  it("counts the ranker's call for teams of more than three agents that reached round 3", () => {
    const recording = readDylanRecording(fixture('mmlu_optimal7_4/abstract_algebra_test_43.json'));
    expect(recording.queries.map((q) => rankerRan(q, 4))).toEqual([false, false, false, true, false]);
    // 4 + 4 + 2 replies and the ranker's call.
    expect(recordedReplies(recording.queries[3]!, 4)).toBe(11);
    expect(answeredIn(recording.queries[3]!, 2)).toHaveLength(2);
    // The authors stopped after three agreeing answers: the fourth agent was never called.
    expect(answeredIn(recording.queries[4]!, 0)).toHaveLength(3);
    expect(recording.issues).toEqual([]);
  });
});

describe('parseDylanRecording: problems are located', () => {
  const json = (text: string) => ({ file: 'run.json', text });
  it('names the line of a line that is not JSON, and the agent and round of a bad reply', () => {
    expect(thrown(() => parseDylanRecording(json('[["a", null, null]]\n{oops'))).location).toEqual({
      file: 'run.json',
      line: 2,
    });
    const bad = thrown(() => parseDylanRecording(json('[["a", 3, null]]')));
    expect(bad.location).toEqual({ file: 'run.json', line: 1, field: '[0][1]' });
    expect(bad.message).toContain('must be a reply (text) or null');
  });

  it('rejects a line with another number of agents than the lines before, and an empty file', () => {
    const error = thrown(() => parseDylanRecording(json('[["a"], ["b"]]\n[["c"]]')));
    expect(error.location?.line).toBe(2);
    expect(error.message).toContain('has 1 agents; the lines before have 2');
    expect(thrown(() => parseDylanRecording(json('\n'))).message).toContain('holds no query');
  });

  it('names the .txt line and field of a malformed figure', () => {
    const txt = (text: string) => ({ file: 'run.txt', text });
    const one = '[["x (A)", null, null]]';
    const error = thrown(() => parseDylanRecording(json(one), txt('[True, Maybe] 0.5\n')));
    expect(error.location).toEqual({ file: 'run.txt', line: 1, field: 'correctness[1]' });
    const missing = thrown(() => parseDylanRecording(json(one), txt('[True] 1.0\n')));
    expect(missing.location).toEqual({ file: 'run.txt', line: 2, field: 'replies' });
    const short = thrown(() => parseDylanRecording(json(one), txt('[True] 1.0\n1 1.0\n[[1, 0]]\n[1, 0, 0]\n')));
    expect(short.location).toEqual({ file: 'run.txt', line: 3, field: 'importance[0]' });
  });

  it('reports a .txt that disagrees with its .json as issues, not as an error', () => {
    const one = '[["x (A)", null, null]]';
    const figures = '[True, True] 1.0\n5 2.5\n[[1, 0, 0], [1, 0, 0]]\n[1, 0, 0]\n';
    const recording = parseDylanRecording(json(one), { file: 'run.txt', text: figures });
    expect(recording.issues.map((issue) => [issue.line, issue.field])).toEqual([
      [1, 'correctness'],
      [2, 'total replies'],
    ]);
  });
});

describe('topRoles', () => {
  it("picks the roles with the largest importance summed over the seven-agent run's rounds, largest first", () => {
    // Rounds of 7 values each: Mathematician (index 3) leads, then Doctor (index 1).
    const mean = [0.1, 0.3, 0, 0.4, 0, 0, 0.2, 0, 0.1, 0, 0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    expect(topRoles(mean, 2)).toEqual(['Mathematician', 'Doctor']);
    expect(topRoles(mean, 3)).toEqual(['Mathematician', 'Doctor', 'Historian']);
  });
});
