import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/store/open-store.js';
import { teamScoreStoreOf } from '../../src/team/team-score-store.js';
import { formatEvaluation } from '../../src/cli/team/team-output.js';
import { teamEvalCommand } from '../../src/cli/team/team-eval-command.js';
import { createOutput } from '../../src/cli/output.js';
import { Capture } from './cli-harness.js';
import { cli, tempHome } from './cli-harness.js';

/** A scripted model file answering in order (one entry per call). */
function script(dir: string, name: string, replies: readonly object[]): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ replies: replies.map((reply) => ({ text: JSON.stringify(reply) })) }));
  return `scripted:${file}`;
}

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** A team file whose agents have their own scripted models (calls per agent are sequential: one per step). */
function scriptedTeam(dir: string, steps: Record<string, readonly object[]>, ranker: readonly object[] = []): string {
  const agents = Object.entries(steps).map(
    ([name, replies]) => `  - name: ${name}\n    prompt: You are ${name}.\n    model: "${script(dir, name, replies)}"`,
  );
  return write(
    dir,
    'team.yaml',
    `name: scripted-panel\nmodel: "${script(dir, 'ranker', ranker)}"\nagents:\n${agents.join('\n')}\n`,
  );
}

const even = [3, 3, 3, 3];
const step = (answer: string, ratings?: number[]) => ({
  answer,
  reasoning: `because ${answer}`,
  ...(ratings ? { ratings } : {}),
});

interface TeamDocument {
  team: string;
  answer: string;
  stoppedAt: number;
  stopReason: string;
  layers: {
    step: number;
    agent: string;
    answer: string;
    peers: string[];
    ratings: number[];
    ratingsParsed: boolean;
  }[][];
  reformation: { afterStep: number; kept: string[]; dropped: string[]; reason: string; fallback: boolean } | null;
  importance: Record<string, number>;
  importanceByLayer: Record<string, number>[];
  calls: number;
  ratingFallbacks: number;
  rankerFallbacks: number;
  models: { agents: Record<string, { model: string; kind: string }>; ranker?: { model: string; kind: string } };
  selection: {
    optimized: boolean;
    reason: string;
    leftOut: string[];
    scores?: { agent: string; mean: number; queries: number }[];
  } | null;
}

function expectClose(actual: Record<string, number>, expected: Record<string, number>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [agent, value] of Object.entries(expected)) expect(actual[agent]).toBeCloseTo(value, 12);
}

describe('weft team <question>', () => {
  it('--json: three of four agree at step 2; layers, stop, importance and calls as computed by hand', async () => {
    const home = tempHome();
    const team = scriptedTeam(home, {
      alice: [step('42'), step('42', even)],
      bob: [step('42'), step('42', even)],
      carol: [step('41'), step('42', even)],
      dave: [step('40'), step('40', even)],
    });
    // Checked per layer: all four answer at step 2 before the check.
    const result = await cli([
      'team',
      'What is six times seven?',
      '--team',
      team,
      '--home',
      home,
      '--stop-check',
      'layer',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as TeamDocument;
    expect(Object.keys(document).sort()).toEqual(
      [
        'team',
        'answer',
        'stoppedAt',
        'stopReason',
        'stopCheck',
        'layers',
        'reformation',
        'tie',
        'importance',
        'importanceByLayer',
        'calls',
        'ratingFallbacks',
        'rankerFallbacks',
        'models',
        'selection',
      ].sort(),
    );
    expect(document).toMatchObject({
      team: 'scripted-panel',
      answer: '42',
      stoppedAt: 2,
      stopReason: 'consensus',
      stopCheck: 'layer',
      reformation: null,
      calls: 8,
      ratingFallbacks: 0,
      rankerFallbacks: 0,
    });
    expect(document.layers.map((layer) => layer.map((node) => `${node.agent}:${node.answer}`))).toEqual([
      ['alice:42', 'bob:42', 'carol:41', 'dave:40'],
      ['alice:42', 'bob:42', 'carol:42', 'dave:40'],
    ]);
    for (const node of document.layers[1]!) expect([...node.peers].sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
    // Step 2: the three agreeing nodes share 1; equal ratings send a quarter of each back to every step-1 node.
    expectClose(document.importanceByLayer[0]!, { alice: 0.25, bob: 0.25, carol: 0.25, dave: 0.25 });
    expectClose(document.importanceByLayer[1]!, { alice: 1 / 3, bob: 1 / 3, carol: 1 / 3, dave: 0 });
    expectClose(document.importance, { alice: 0.25 + 1 / 3, bob: 0.25 + 1 / 3, carol: 0.25 + 1 / 3, dave: 0.25 });
    expect(document.models.agents.alice).toEqual({ model: `scripted:${join(home, 'alice.json')}`, kind: 'scripted' });
    expect(document.models.ranker).toEqual({ model: `scripted:${join(home, 'ranker.json')}`, kind: 'scripted' });
    expect(document.selection).toMatchObject({ optimized: false });
    // Progress went to stderr.
    expect(result.stderr).toContain('step 2: 3 of 4 agree: consensus');
  });

  it('text: the ranker drops the two wrong agents after step 3 and the report says who and why', async () => {
    const home = tempHome();
    const team = scriptedTeam(
      home,
      {
        alice: [step('1'), step('1', even), step('1', even), step('1', [3, 3])],
        bob: [step('1'), step('2', even), step('2', even), step('1', [3, 3])],
        carol: [step('3'), step('3', even), step('3', even)],
        dave: [step('4'), step('4', even), step('1', even)],
      },
      [{ ranking: ['alice', 'bob'] }],
    );
    const question = write(home, 'question.txt', 'Which number?\n');
    const result = await cli(['team', 'run', question, '--team', team, '--home', home]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('answer: 1');
    expect(result.stdout).toContain('stopped at step 4: consensus');
    expect(result.stdout).toContain('reformation after step 3: kept alice, bob; dropped carol, dave');
    expect(result.stdout).toContain('why: LLM ranker: alice > bob');
    expect(result.stdout).toMatch(/step 1\n {2}alice: 1 {2}\(saw only the question\)/);
    expect(result.stdout).toContain('calls: 15 for this query');
    expect(result.stdout).toContain('(scripted model): ranker');
    const json = JSON.parse(
      (
        await cli([
          'team',
          'run',
          question,
          '--team',
          scriptedTeam(
            home,
            {
              alice: [step('1'), step('1', even), step('1', even), step('1', [3, 3])],
              bob: [step('1'), step('2', even), step('2', even), step('1', [3, 3])],
              carol: [step('3'), step('3', even), step('3', even)],
              dave: [step('4'), step('4', even), step('1', even)],
            },
            [{ ranking: ['alice', 'bob'] }],
          ),
          '--home',
          home,
          '--json',
        ])
      ).stdout,
    ) as TeamDocument;
    expect(json.reformation).toEqual({
      afterStep: 3,
      kept: ['alice', 'bob'],
      dropped: ['carol', 'dave'],
      reason: 'LLM ranker: alice > bob',
      fallback: false,
    });
    expect(json.layers[3]!.map((node) => node.agent)).toEqual(['alice', 'bob']);
    expect(json.calls).toBe(15);
  });

  it('--max-steps stops a team that never agrees, with the majority of the last layer', async () => {
    const home = tempHome();
    const team = scriptedTeam(home, {
      alice: [step('a'), step('a', [3, 3, 3])],
      bob: [step('b'), step('b', [3, 3, 3])],
      carol: [step('c'), step('c', [3, 3, 3])],
    });
    const document = JSON.parse(
      (await cli(['team', 'Pick.', '--team', team, '--max-steps', '2', '--home', home, '--json'])).stdout,
    ) as TeamDocument;
    expect(document).toMatchObject({ stopReason: 'max-steps', stoppedAt: 2, answer: 'a', calls: 6 });
  });
});

/** A pool of sim agents: four always right, one always wrong. Every query stops at step 1 (4 of 5 agree). */
function simPool(dir: string): string {
  const agents = [
    ['analyst', 1, 11],
    ['solver', 1, 12],
    ['checker', 1, 13],
    ['skeptic', 1, 14],
    ['novice', 0, 15],
  ].map(
    ([name, accuracy, seed]) =>
      `  - name: ${name}\n    prompt: You are the ${name}.\n    model: "sim:accuracy=${accuracy},seed=${seed}"`,
  );
  return write(dir, 'pool.yaml', `name: pool\nmodel: "sim:accuracy=1,seed=3"\nagents:\n${agents.join('\n')}\n`);
}

function queries(dir: string, count: number, answer = 'correct'): string {
  return write(
    dir,
    'q.jsonl',
    `${Array.from({ length: count }, (_, i) =>
      JSON.stringify({ id: `q${i + 1}`, question: `Question ${i + 1}?`, answer }),
    ).join('\n')}\n`,
  );
}

describe('weft team optimize', () => {
  it('scores the pool, keeps the top k, saves the scores; `weft team` then runs the optimised team and says why', async () => {
    const home = tempHome();
    const pool = simPool(home);
    const sample = queries(home, 5);
    const result = await cli([
      'team',
      'optimize',
      '--team',
      pool,
      '--queries',
      sample,
      '--k',
      '4',
      '--home',
      home,
      // Per layer: every agent answers every query (per answer, the fifth might not be called).
      '--stop-check',
      'layer',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      team: string;
      taskType: string;
      k: number;
      queries: number;
      chosen: string[];
      dropped: string[];
      scores: Record<string, { total: number; mean: number; queries: number }>;
      calls: number;
      callsPerQuery: number;
      stored: { agent: string; mean: number; queries: number; importance: number }[];
      runsUse: number;
      runsWith: string[];
    };
    expect(document).toMatchObject({
      team: 'pool',
      taskType: 'general',
      k: 4,
      queries: 5,
      chosen: ['analyst', 'solver', 'checker', 'skeptic'],
      dropped: ['novice'],
      calls: 25,
      callsPerQuery: 5,
    });
    // Later runs take the top k of the stored totals, in the team file's order.
    expect(document).toMatchObject({ runsUse: 4, runsWith: ['analyst', 'solver', 'checker', 'skeptic'] });
    // One layer; its 1 is shared by the four right agents.
    for (const agent of document.chosen)
      expect(document.scores[agent]).toEqual({ total: 1.25, mean: 0.25, queries: 5 });
    expect(document.scores.novice).toEqual({ total: 0, mean: 0, queries: 5 });
    expect(result.stderr).toContain('optimize 5/5');

    const store = teamScoreStoreOf(await openRunStore({ home }));
    try {
      const stored = await store.teamScores('pool', 'general');
      expect(stored.map((score) => [score.agent, score.queries, score.mean])).toEqual([
        ['analyst', 5, 0.25],
        ['checker', 5, 0.25],
        ['skeptic', 5, 0.25],
        ['solver', 5, 0.25],
        ['novice', 5, 0],
      ]);
      expect(await store.teamSize('pool', 'general')).toBe(4);
    } finally {
      await store.close();
    }

    const asked = JSON.parse(
      (await cli(['team', 'What now?', '--team', pool, '--home', home, '--stop-check', 'layer', '--json'])).stdout,
    ) as TeamDocument;
    expect(asked.selection).toMatchObject({ optimized: true, leftOut: ['novice'] });
    expect(asked.selection!.reason).toContain('novice (mean 0.000 over 5 queries)');
    expect(asked.selection!.reason).toContain('(team size 4 set by `weft team optimize --k 4`)');
    expect(asked.layers[0]!.map((node) => node.agent)).toEqual(['analyst', 'solver', 'checker', 'skeptic']);
    const text = await cli(['team', 'What now?', '--team', pool, '--home', home]);
    expect(text.stdout).toMatch(/^optimised team: the top 4 of 5 agents/);
    // The chosen agents are listed once, in the reason, not again as a table.
    expect(text.stdout.match(/analyst \(mean 0\.250 over 5 queries\)/g)).toHaveLength(1);
    expect(text.stdout).not.toContain('✔');

    const whole = JSON.parse(
      (
        await cli([
          'team',
          'What now?',
          '--team',
          pool,
          '--home',
          home,
          '--stop-check',
          'layer',
          '--no-optimized',
          '--json',
        ])
      ).stdout,
    ) as TeamDocument;
    expect(whole.selection).toBeNull();
    expect(whole.layers[0]!).toHaveLength(5);

    // Another task type has no scores: the whole team runs.
    const other = JSON.parse(
      (
        await cli([
          'team',
          'What now?',
          '--team',
          pool,
          '--home',
          home,
          '--stop-check',
          'layer',
          '--task-type',
          'math',
          '--json',
        ])
      ).stdout,
    ) as TeamDocument;
    expect(other.selection).toMatchObject({ optimized: false });
    expect(other.layers[0]!).toHaveLength(5);

    // A second optimisation adds to the stored totals.
    const again = JSON.parse(
      (
        await cli([
          'team',
          'optimize',
          '--team',
          pool,
          '--queries',
          sample,
          '--k',
          '4',
          '--home',
          home,
          '--stop-check',
          'layer',
          '--json',
        ])
      ).stdout,
    ) as typeof document;
    expect(again.stored.find((score) => score.agent === 'analyst')).toEqual({
      agent: 'analyst',
      importance: 2.5,
      queries: 10,
      mean: 0.25,
    });
  });

  it('text output names the chosen team and each score', async () => {
    const home = tempHome();
    const result = await cli([
      'team',
      'optimize',
      '--team',
      simPool(home),
      '--queries',
      queries(home, 2),
      '--k',
      '2',
      '--home',
      home,
      '--stop-check',
      'layer',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'top 2 of team "pool" (task type "general") by Agent Importance Score: analyst, solver',
    );
    // --k is recorded and later runs take the top 2 of the stored totals; four agents tie there, and ties go by
    // name (analyst, checker), unlike this run's pool order: the report says so.
    expect(result.stdout).toContain(
      "team size 2 recorded (the latest optimisation's --k wins): `weft team`, `weft team eval` and workflow team roles now run the top 2 by stored mean: analyst, checker (not the ✔ above: the stored totals rank them, ties going by name) (--no-optimized runs every agent).",
    );
    expect(result.stdout).not.toContain('--k only chooses');
    expect(result.stdout).toMatch(/✔ analyst +mean 0\.250 +total 0\.500 over 2 queries/);
    expect(result.stdout).toMatch(/ {4}novice +mean 0\.000/);
    expect(result.stdout).toContain('calls: 10 (5.00 per query)');
    expect(result.stdout).toContain('(sim model)');
  });
});

describe('weft team optimize --k: the team size later runs take', () => {
  /** Five sim agents of different accuracy: one query's importance ranks them without ties. */
  function rankedPool(dir: string): string {
    const agents = [
      ['ace', 1, 21],
      ['good', 1, 22],
      ['fair', 1, 23],
      ['weak', 0, 24],
      ['lost', 0, 25],
    ].map(
      ([name, accuracy, seed]) =>
        `  - name: ${name}\n    prompt: You are ${name}.\n    model: "sim:accuracy=${accuracy},seed=${seed}"`,
    );
    return write(dir, 'ranked.yaml', `name: ranked\nmodel: "sim:accuracy=1,seed=3"\nagents:\n${agents.join('\n')}\n`);
  }

  it('records k; `weft team` and `weft team eval` then run the top k, and the latest optimisation wins', async () => {
    const home = tempHome();
    const pool = simPool(home);
    const sample = queries(home, 2);
    const optimize = async (k: string) =>
      JSON.parse(
        (await cli(['team', 'optimize', '--team', pool, '--queries', sample, '--k', k, '--home', home, '--json']))
          .stdout,
      ) as { k: number; runsUse: number; runsWith: string[] };
    expect(await optimize('2')).toMatchObject({ k: 2, runsUse: 2, runsWith: ['analyst', 'checker'] });

    const asked = JSON.parse(
      (await cli(['team', 'What now?', '--team', pool, '--home', home, '--json'])).stdout,
    ) as TeamDocument;
    expect(asked.selection).toMatchObject({ optimized: true, leftOut: ['solver', 'skeptic', 'novice'] });
    expect(asked.selection!.reason).toMatch(
      /^optimised team: the top 2 of 5 agents by mean importance stored for team "pool", task type "general": /,
    );
    expect(asked.selection!.reason).toMatch(/\(team size 2 set by `weft team optimize --k 2`\)$/);
    expect(asked.layers[0]!.map((node) => node.agent)).toEqual(['analyst', 'checker']);
    const text = await cli(['team', 'What now?', '--team', pool, '--home', home]);
    expect(text.stdout.split('\n')[0]).toContain('(team size 2 set by `weft team optimize --k 2`)');

    const data = write(home, 'data.jsonl', `${JSON.stringify({ id: 1, question: 'One?', answer: 'correct' })}\n`);
    const evaluated = JSON.parse(
      (await cli(['team', 'eval', '--team', pool, '--data', data, '--home', home, '--json'])).stdout,
    ) as { selection: TeamDocument['selection']; calls: number };
    expect(evaluated.selection).toMatchObject({ optimized: true, leftOut: ['solver', 'skeptic', 'novice'] });
    expect(evaluated.calls).toBe(2);

    // The latest optimisation's k wins, larger or smaller; --no-optimized still runs everyone.
    expect(await optimize('3')).toMatchObject({ k: 3, runsUse: 3, runsWith: ['analyst', 'checker', 'skeptic'] });
    const three = JSON.parse(
      (await cli(['team', 'What now?', '--team', pool, '--home', home, '--json'])).stdout,
    ) as TeamDocument;
    expect(three.layers[0]!.map((node) => node.agent)).toEqual(['analyst', 'checker', 'skeptic']);
    expect(three.selection!.reason).toContain('(team size 3 set by `weft team optimize --k 3`)');
    const whole = JSON.parse(
      (await cli(['team', 'What now?', '--team', pool, '--home', home, '--no-optimized', '--json'])).stdout,
    ) as TeamDocument;
    expect(whole.layers[0]!).toHaveLength(5);
    // k as large as the pool: the whole team runs, and says why.
    const all = await cli(['team', 'optimize', '--team', pool, '--queries', sample, '--k', '5', '--home', home]);
    expect(all.stdout).toContain(
      'now run the whole team (5 agents, no more than 5): analyst, solver, checker, skeptic, novice',
    );
    const five = JSON.parse(
      (await cli(['team', 'What now?', '--team', pool, '--home', home, '--json'])).stdout,
    ) as TeamDocument;
    expect(five.selection).toMatchObject({ optimized: false });
    expect(five.selection!.reason).toBe(
      'the team has 5 agent(s), no more than the optimised size 5 (team size 5 set by `weft team optimize --k 5`): the whole team runs',
    );
    // Another task type has no size of its own (nor scores).
    const store = teamScoreStoreOf(await openRunStore({ home }));
    try {
      expect(await store.teamSize('pool', 'general')).toBe(5);
      expect(await store.teamSize('pool', 'math')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('without a recorded k (scores saved by workflow team roles) runs the top 4 and says so', async () => {
    const home = tempHome();
    const pool = rankedPool(home);
    const store = teamScoreStoreOf(await openRunStore({ home }));
    try {
      await store.saveTeamScores({
        team: 'ranked',
        taskType: 'general',
        scores: [
          ['ace', 5],
          ['good', 4],
          ['fair', 3],
          ['weak', 2],
          ['lost', 1],
        ].map(([agent, importance]) => ({ agent: agent as string, importance: importance as number, queries: 10 })),
      });
    } finally {
      await store.close();
    }
    const asked = JSON.parse(
      (await cli(['team', 'Which?', '--team', pool, '--home', home, '--json'])).stdout,
    ) as TeamDocument;
    expect(asked.selection).toMatchObject({ optimized: true, leftOut: ['lost'] });
    expect(asked.selection!.reason).toContain(
      "(DyLAN's default team size 4: no `weft team optimize --k` recorded one)",
    );
  });

  it('records nothing, k included, when no sample query finished', async () => {
    const home = tempHome();
    const pool = write(
      home,
      'failing.yaml',
      'name: failing\nmodel: "sim:error=1,seed=1"\nagents:\n  - name: a\n    prompt: You are a.\n  - name: b\n    prompt: You are b.\n',
    );
    const result = await cli([
      'team',
      'optimize',
      '--team',
      pool,
      '--queries',
      queries(home, 1),
      '--k',
      '1',
      '--home',
      home,
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ k: 1, runsUse: 4, runsWith: ['a', 'b'], chosen: [], stored: [] });
    const store = teamScoreStoreOf(await openRunStore({ home }));
    try {
      expect(await store.teamSize('failing', 'general')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('weft team eval', () => {
  it('Ctrl-C: reports the items finished so far, says it was cancelled, exit 1', async () => {
    const home = tempHome();
    const team = write(
      home,
      'slow.yaml',
      'name: slow\nmodel: "sim:accuracy=1,seed=2,latency=fixed(40)"\nagents:\n' +
        ['a', 'b'].map((name) => `  - name: ${name}\n    prompt: You are ${name}.`).join('\n') +
        '\n',
    );
    const data = write(
      home,
      'data.jsonl',
      Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: `q${i}`, question: `Q${i}?`, answer: 'correct' })).join(
        '\n',
      ),
    );
    const stdout = new Capture();
    const stderr = new Capture();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const code = await teamEvalCommand(
      { team, data, home, concurrency: '1', json: true },
      createOutput(true, { stdout, stderr }),
      controller.signal,
    );
    expect(code).toBe(1);
    const document = JSON.parse(stdout.text) as {
      cancelled: { finished: number; of: number };
      total: number;
      perItem: unknown[];
    };
    expect(document.cancelled.of).toBe(6);
    expect(document.cancelled.finished).toBeLessThan(6);
    expect(document.total).toBe(document.cancelled.finished);
    expect(document.perItem).toHaveLength(document.cancelled.finished);
    expect(stderr.text).toContain(
      `eval cancelled: the report covers the ${document.cancelled.finished} of 6 items that finished`,
    );
  });

  it('--json: accuracy, calls per query and early-stop rate', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: four\nmodel: "sim:accuracy=1,seed=2"\nagents:\n' +
        ['a', 'b', 'c', 'd'].map((name) => `  - name: ${name}\n    prompt: You are ${name}.`).join('\n') +
        '\n',
    );
    const data = write(
      home,
      'data.jsonl',
      [
        { id: 1, question: 'One?', answer: 'correct' },
        { id: 2, question: 'Two?', answer: 'correct' },
        { id: 3, question: 'Three?', answer: 'something else' },
        { id: 4, question: 'Pick one.', choices: ['wrong-1', 'correct', 'wrong-2'], answer: 'B' },
      ]
        .map((item) => JSON.stringify(item))
        .join('\n'),
    );
    const result = await cli([
      'team',
      'eval',
      '--team',
      team,
      '--data',
      data,
      '--home',
      home,
      '--concurrency',
      '2',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as Record<string, unknown> & {
      perItem: { id: string; answer: string; correct: boolean }[];
    };
    expect(document).toMatchObject({
      team: 'four',
      accuracy: 0.75,
      correct: 3,
      total: 4,
      // Per answer (the default): three agreeing answers of four stop each query.
      calls: 12,
      callsPerQuery: 3,
      earlyStops: 4,
      earlyStopRate: 1,
      meanStop: 1,
      selection: { optimized: false },
    });
    expect(document.perItem.map((item) => [item.id, item.answer, item.correct])).toEqual([
      ['1', 'correct', true],
      ['2', 'correct', true],
      ['3', 'correct', false],
      ['4', 'B', true],
    ]);
    expect(result.stderr).toContain('eval 4/4');

    const text = await cli(['team', 'eval', '--team', team, '--data', data, '--home', home]);
    expect(text.stdout).toContain('accuracy        0.7500  (3/4)');
    expect(text.stdout).toContain('calls per query 3.00');
    const layered = await cli([
      'team',
      'eval',
      '--team',
      team,
      '--data',
      data,
      '--home',
      home,
      '--stop-check',
      'layer',
    ]);
    expect(layered.stdout).toContain('calls per query 4.00');
    const bad = await cli(['team', 'eval', '--team', team, '--data', data, '--home', home, '--stop-check', 'never']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--stop-check must be answer or layer, got "never"');
    expect(text.stdout).toContain('early stop      100.0 %');
    expect(text.stdout).toContain('3: answered "correct", expected "something else"');
  });

  it('warns that sim agents cannot be right on a dataset without the answer "correct"', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: two\nmodel: "sim:accuracy=1,seed=2"\nagents:\n  - name: a\n    prompt: You are a.\n  - name: b\n    prompt: You are b.\n',
    );
    const real = write(
      home,
      'real.jsonl',
      JSON.stringify({ id: 'q', question: '17 x 6?', choices: ['92', '102'], answer: 'B' }),
    );
    const warned = await cli(['team', 'eval', '--team', team, '--data', real, '--home', home, '--json']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('warning: a, b run on a sim model');
    expect(JSON.parse(warned.stdout)).toMatchObject({ accuracy: 0 });
    const sim = write(
      home,
      'sim.jsonl',
      JSON.stringify({ id: 'q', question: 'Pick.', choices: ['wrong-1', 'correct'], answer: 'b' }),
    );
    const quiet = await cli(['team', 'eval', '--team', team, '--data', sim, '--home', home, '--json']);
    expect(quiet.stderr).not.toContain('warning');
  });
});

describe('the shipped team examples, offline (sim answers=: the gold answers known only inside the simulator)', () => {
  it('a single sim agent is right about as often as its accuracy; the DyLAN team more often; both labelled simulated', async () => {
    const home = tempHome();
    const data = 'examples/teams/mc-sample.jsonl';
    const evaluate = async (team: string, seed: number) => {
      const result = await cli([
        'team',
        'eval',
        '--team',
        `examples/teams/${team}.yaml`,
        '--data',
        data,
        '--model',
        `sim:accuracy=0.7,seed=${seed},answers=${data}`,
        '--home',
        home,
        '--json',
      ]);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`simulated: `);
      expect(result.stderr).toContain(`knows the gold answers of ${data}`);
      expect(result.stderr).not.toContain('warning');
      return JSON.parse(result.stdout) as {
        correct: number;
        total: number;
        calls: number;
        models: { agents: Record<string, { model: string; kind: string }> };
      };
    };
    let single = 0;
    let team = 0;
    let teamCalls = 0;
    for (const seed of [1, 2, 3]) {
      const alone = await evaluate('single', seed);
      const debate = await evaluate('debate', seed);
      expect(debate.models.agents['reasoner']).toMatchObject({
        kind: 'sim',
        model: expect.stringContaining(`answers=${data}`),
      });
      single += alone.correct;
      team += debate.correct;
      teamCalls += debate.calls;
    }
    // 66 answers each: a 0.7 agent alone is right 46 times on average; the team (consensus, ranking) far more often.
    expect(single).toBeGreaterThan(30);
    expect(single).toBeLessThan(60);
    expect(team).toBeGreaterThan(single);
    expect(team).toBeGreaterThanOrEqual(60);
    expect(teamCalls / 66).toBeLessThan(16);
  });

  it('team optimize on the simulated pool picks the four most accurate agents (the key skips queries without answers)', async () => {
    const home = tempHome();
    const result = await cli([
      'team',
      'optimize',
      '--team',
      'examples/teams/sim-pool.yaml',
      '--queries',
      'examples/teams/queries.jsonl',
      '--k',
      '4',
      '--home',
      home,
      // Per answer, only the agents called before consensus score in the stopping layer; over these 8 queries
      // that leaves the 0.6 and the 0.4 agent within noise of each other, so the ranking is checked per layer.
      '--stop-check',
      'layer',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('simulated: ');
    const document = JSON.parse(result.stdout) as { chosen: string[] };
    // Their sim accuracies are 0.9, 0.8, 0.7 and 0.6; the other three have 0.5, 0.4 and 0.3.
    expect([...document.chosen].sort()).toEqual(['logician', 'mathematician', 'reasoner', 'skeptic']);
  });

  it('answers a question from its key by the question text, and the literal "correct" for questions not in it', async () => {
    const { createModel } = await import('../../src/llm/resolve-model.js');
    const model = await createModel('sim:accuracy=1,answers=examples/teams/mc-sample.jsonl');
    const content =
      'Question:\nWhat is 144 divided by 12?\n\nAnswer the question. Reply with one JSON object and nothing else:';
    const reply = JSON.parse(
      (
        await model.generate({
          messages: [{ role: 'user', content }],
          tag: { purpose: 'answer', key: 'a/step-1/q', attempt: 1 },
        })
      ).text,
    ) as { answer: string };
    expect(reply.answer).toBe('12');
    const unknown = JSON.parse(
      (
        await model.generate({
          messages: [{ role: 'user', content: 'Question:\nNot in the key?' }],
          tag: { purpose: 'answer', key: 'a/step-1/q2', attempt: 1 },
        })
      ).text,
    ) as { answer: string };
    expect(unknown.answer).toBe('correct');
  });
});

describe('weft team: bad input exits 2 naming the file, line and field', () => {
  const goodTeam = (dir: string) =>
    write(
      dir,
      'team.yaml',
      'name: t\nmodel: "sim:seed=1"\nagents:\n  - name: a\n    prompt: You are a.\n  - name: b\n    prompt: You are b.\n',
    );

  async function expectBadInput(
    args: string[],
    ...needles: string[]
  ): Promise<{ error: { code: string; location?: Record<string, unknown>; issues?: Record<string, unknown>[] } }> {
    const result = await cli([...args, '--json']);
    expect(result.code).toBe(2);
    for (const needle of needles) expect(result.stderr).toContain(needle);
    const document = JSON.parse(result.stdout) as { error: { code: string } };
    expect(document.error.code).toBe('BAD_INPUT');
    return document as never;
  }

  it('a team file with an unknown field', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: t\nmodel: "sim:seed=1"\ncolour: red\nagents:\n  - name: a\n    prompt: You are a.\n',
    );
    const document = await expectBadInput(
      ['team', 'Q?', '--team', team, '--home', home],
      `${team}:3:1 colour`,
      'unknown field "colour"',
    );
    expect(document.error.issues![0]).toMatchObject({ file: team, line: 3, field: 'colour' });
  });

  it('a role without a prompt', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: t\nmodel: "sim:seed=1"\nagents:\n  - name: a\n    prompt: You are a.\n  - name: b\n',
    );
    const document = await expectBadInput(
      ['team', 'eval', '--team', team, '--data', queries(home, 1), '--home', home],
      `${team}:6`,
      'agents[1].prompt',
      'has no prompt',
    );
    expect(document.error.issues![0]).toMatchObject({ file: team, line: 6, field: 'agents[1].prompt' });
  });

  it('k larger than the pool', async () => {
    const home = tempHome();
    const team = goodTeam(home);
    const document = await expectBadInput(
      ['team', 'optimize', '--team', team, '--queries', queries(home, 1), '--k', '3', '--home', home],
      team,
      '--k',
      'larger than the pool',
    );
    expect(document.error.location).toEqual({ file: team, field: '--k' });
  });

  it('a dataset line without an answer', async () => {
    const home = tempHome();
    const data = write(
      home,
      'mc.jsonl',
      `${JSON.stringify({ id: 'q1', question: 'One?', answer: 'A', choices: ['x', 'y'] })}\n${JSON.stringify({ id: 'q2', question: 'Two?' })}\n`,
    );
    const document = await expectBadInput(
      ['team', 'eval', '--team', goodTeam(home), '--data', data, '--home', home],
      `${data}:2`,
      'answer',
    );
    expect(document.error.issues![0]).toMatchObject({ file: data, line: 2, field: 'answer' });
  });

  it.each([
    [['team', 'Q?'], '--team'],
    [['team', 'Q?', '--max-steps', '0'], '--max-steps'],
    [['team', 'Q?', '--seed', 'x'], '--seed'],
    [['team', 'Q?', '--task-type', ' '], '--task-type'],
    [['team', '  '], '<question>'],
    [['team'], '<question>'],
    [['team', 'optimize', '--queries', 'q.jsonl', '--k', '2'], '--team'],
    [['team', 'optimize', '--queries', 'q.jsonl'], '--k'],
    [['team', 'optimize', '--queries', 'q.jsonl', '--k', '0'], '--k'],
    [['team', 'eval'], '--data'],
    [['team', 'eval', '--data', 'd.jsonl', '--concurrency', '0'], '--concurrency'],
  ])('flags %j exit 2 naming %s', async (args, field) => {
    const home = tempHome();
    const team = goodTeam(home);
    const withTeam = args.includes('--team') || field === '--team' ? args : [...args, '--team', team];
    const document = await expectBadInput([...withTeam, '--home', home], field);
    expect(document.error.location).toMatchObject({ field });
  });

  it('a team file that does not exist', async () => {
    const home = tempHome();
    const missing = join(home, 'nope.yaml');
    const document = await expectBadInput(['team', 'Q?', '--team', missing, '--home', home], missing);
    expect(document.error.location).toMatchObject({ file: missing });
  });
});

describe('weft team: review fixes', () => {
  const twoAgents = (dir: string, extra = '') =>
    write(
      dir,
      'team.yaml',
      `name: t\nmodel: "sim:seed=1"\n${extra}agents:\n  - name: a\n    prompt: You are a.\n  - name: b\n    prompt: You are b.\n`,
    );

  it('locates a bad model spec inside the team file (file, line, field), not as a --model problem', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: t\nagents:\n  - name: a\n    prompt: You are a.\n    model: "bogus:x"\n  - name: b\n    prompt: You are b.\n    model: "sim:seed=1,folow=0.3"\n',
    );
    const result = await cli(['team', 'Q?', '--team', team, '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${team}:5:5 agents[0].model: invalid model spec "bogus:x"`);
    expect(result.stderr).toContain(
      `${team}:8:5 agents[1].model: invalid model spec "sim:seed=1,folow=0.3": bad sim option "folow"`,
    );
    expect(result.stderr).not.toContain('--model flag');
  });

  it('refuses a question argument that looks like a missing file, as `weft run` does', async () => {
    const home = tempHome();
    const result = await cli(['team', 'missing.txt', '--team', twoAgents(home), '--home', home, '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({
      error: { code: 'BAD_INPUT', location: { file: 'missing.txt' } },
    });
    expect(result.stderr).toContain('cannot read the question file: no such file');
    expect(result.stderr).not.toContain('step 1');
  });

  it('eval says why a code answer is wrong (its tests), and shows an empty answer as (no answer)', async () => {
    const home = tempHome();
    const team = write(
      home,
      'code.yaml',
      'name: coders\nanswerKind: code\nmodel: "sim:seed=2"\nagents:\n  - name: a\n    prompt: You code.\n  - name: b\n    prompt: You code too.\n  - name: runner\n    kind: tool\n    tool: code-runner\n',
    );
    const data = write(
      home,
      'code.jsonl',
      JSON.stringify({ id: 'c1', question: 'Write f returning 1.', answer: 'correct', tests: 'assert.equal(f(), 1)' }),
    );
    const result = await cli(['team', 'eval', '--team', team, '--data', data, '--home', home]);
    expect(result.stdout).toContain('c1: tests 0/1 passed; answered "correct"');
    expect(result.stdout).not.toContain('expected "correct"');
    const evaluation = {
      accuracy: 0,
      correct: 0,
      total: 1,
      callsPerQuery: 1,
      calls: 1,
      earlyStops: 1,
      meanStop: 1,
      failed: 0,
      ratingFallbacks: 0,
      rankerFallbacks: 0,
      perItem: [
        {
          id: 'q',
          answer: '',
          expected: 'B',
          correct: false,
          calls: 1,
          stoppedAt: 1,
          stopReason: 'consensus' as const,
        },
      ],
    };
    expect(formatEvaluation('t', 'd.jsonl', evaluation, 1, { agents: {} }, null)).toContain(
      '  q: (no answer), expected "B"',
    );
  });

  it('eval and optimize carry on past items whose provider call fails, count them, and exit 1', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: e\nagents:\n  - name: a\n    prompt: You are a.\n  - name: b\n    prompt: You are b.\n',
    );
    const data = queries(home, 6);
    const model = 'sim:error=0.5,seed=3';
    const evaluated = await cli([
      'team',
      'eval',
      '--team',
      team,
      '--data',
      data,
      '--model',
      model,
      '--home',
      home,
      '--json',
    ]);
    expect(evaluated.code).toBe(1);
    const document = JSON.parse(evaluated.stdout) as {
      total: number;
      failed: number;
      correct: number;
      perItem: { error?: string }[];
    };
    expect(document.total).toBe(6);
    expect(document.failed).toBeGreaterThan(0);
    expect(document.failed).toBeLessThan(6);
    expect(document.perItem.filter((item) => item.error !== undefined)).toHaveLength(document.failed);
    expect(document.correct).toBe(6 - document.failed);
    const text = await cli(['team', 'eval', '--team', team, '--data', data, '--model', model, '--home', home]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`failed          ${document.failed} of 6 items`);
    expect(text.stdout).toMatch(/q\d: failed: .*simulated provider error/);

    const optimized = await cli([
      'team',
      'optimize',
      '--team',
      team,
      '--queries',
      data,
      '--k',
      '1',
      '--model',
      model,
      '--home',
      home,
      '--json',
    ]);
    expect(optimized.code).toBe(1);
    const result = JSON.parse(optimized.stdout) as {
      failed: number;
      failures: { id: string; error: string }[];
      scores: Record<string, { queries: number }>;
    };
    expect(result.failed).toBeGreaterThan(0);
    expect(result.failures).toHaveLength(result.failed);
    expect(result.scores.a!.queries).toBe(6 - result.failed);
  });

  it.each([
    ['optimize', ['--queries', 'q.jsonl', '--k', '2']],
    ['eval', ['--data', 'd.jsonl']],
    ['run', ['Q?']],
  ])('says that options go after the subcommand (%s)', async (sub, rest) => {
    const home = tempHome();
    const result = await cli(['team', '--team', twoAgents(home), sub, ...rest, '--home', home, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`options go after the subcommand: weft team ${sub} --team …`);
  });

  it('always says which agents run and why, in text', async () => {
    const home = tempHome();
    const team = twoAgents(home);
    const run = await cli(['team', 'Q?', '--team', team, '--home', home]);
    expect(run.stdout.split('\n')[0]).toBe(
      'no stored importance scores for team "t", task type "general": the whole team runs',
    );
    const whole = await cli(['team', 'Q?', '--team', team, '--home', home, '--no-optimized']);
    expect(whole.stdout.split('\n')[0]).toBe('every agent of the team file runs (--no-optimized)');
    const evaluated = await cli(['team', 'eval', '--team', team, '--data', queries(home, 1), '--home', home]);
    expect(evaluated.stdout.split('\n')[0]).toBe(
      'no stored importance scores for team "t", task type "general": the whole team runs',
    );
  });

  it('names the agent without a model when no default model is configured', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: t\nagents:\n  - name: a\n    prompt: You are a.\n    model: "sim:seed=1"\n  - name: b\n    prompt: You are b.\n',
    );
    const result = await cli(['team', 'Q?', '--team', team, '--home', home], {
      WEFT_MODEL: undefined,
      OPENAI_API_KEY: undefined,
      ANTHROPIC_API_KEY: undefined,
      OLLAMA_HOST: 'http://127.0.0.1:9',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`agent "b" of team "t" (${team}) has no model`);
  });

  it('optimize warns when sim agents meet queries whose answers are not "correct", or that have no answers', async () => {
    const home = tempHome();
    const pool = simPool(home);
    const wrong = await cli([
      'team',
      'optimize',
      '--team',
      pool,
      '--queries',
      queries(home, 1, 'Paris'),
      '--k',
      '2',
      '--home',
      home,
      '--json',
    ]);
    expect(wrong.stderr).toContain('no item of this queries file has that answer, so the ranking measures nothing');
    const bare = write(home, 'bare.jsonl', JSON.stringify({ id: 'q', question: 'Why?' }));
    const unanswered = await cli([
      'team',
      'optimize',
      '--team',
      pool,
      '--queries',
      bare,
      '--k',
      '2',
      '--home',
      home,
      '--json',
    ]);
    expect(unanswered.stderr).toContain(
      "these queries have no answers: sim importance reflects only each agent's sim settings",
    );
    const right = await cli([
      'team',
      'optimize',
      '--team',
      pool,
      '--queries',
      queries(home, 1),
      '--k',
      '2',
      '--home',
      home,
      '--json',
    ]);
    expect(right.stderr).not.toContain('warning');
  });

  it('says when the final answer won a tie, and what broke it', async () => {
    const home = tempHome();
    const team = scriptedTeam(home, {
      alice: [step('a'), step('a', [3, 3, 3])],
      bob: [step('b'), step('b', [3, 3, 3])],
      carol: [step('c'), step('c', [3, 3, 3])],
    });
    const result = await cli(['team', 'Pick.', '--team', team, '--max-steps', '2', '--home', home]);
    expect(result.stdout).toContain("the answer is the last layer's first tied answer");
    expect(result.stdout).toContain('tie between "a", "b", "c", broken by the team file\'s order');
    const again = scriptedTeam(home, {
      alice: [step('a'), step('a', [3, 3, 3])],
      bob: [step('b'), step('b', [3, 3, 3])],
      carol: [step('c'), step('c', [3, 3, 3])],
    });
    const document = JSON.parse(
      (await cli(['team', 'Pick.', '--team', again, '--max-steps', '2', '--home', home, '--json'])).stdout,
    ) as { tie: unknown };
    expect(document.tie).toEqual({ answers: ['a', 'b', 'c'], brokenBy: 'team order' });
  });
});
