import { describe, expect, it } from 'vitest';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import type { CandidateSummary, WeftEvent } from '../../src/run/events.js';
import { diffSubtasks, formatPlanHistory, planHistory } from '../../src/run/plan-history.js';

const v1: WorkflowJson = {
  task: 'Build a game',
  subtasks: [
    { id: 'board', objective: 'Draw the board', agent: 'coder', dependsOn: [] },
    { id: 'rules', objective: 'Write the rules', agent: 'coder', dependsOn: [] },
    { id: 'tests', objective: 'Test everything', agent: 'tester', dependsOn: ['board'] },
  ],
};
const v2: WorkflowJson = {
  task: 'Build a game',
  subtasks: [
    {
      id: 'board',
      objective: 'Draw the board with a canvas',
      agent: 'coder',
      dependsOn: [],
      status: 'not started',
      attempts: 1,
    },
    {
      id: 'rules',
      objective: 'Write the rules',
      agent: 'coder',
      dependsOn: [],
      status: 'completed',
      attempts: 1,
      output: 'done',
    },
    { id: 'tests', objective: 'Test everything', agent: 'tester', dependsOn: ['board', 'rules'] },
  ],
};
const v3: WorkflowJson = {
  task: 'Build a game',
  subtasks: [
    { id: 'board', objective: 'Draw the board with a canvas', agent: 'designer', dependsOn: [] },
    { id: 'rules', objective: 'Write the rules', agent: 'coder', dependsOn: [] },
    { id: 'check', objective: 'Check the win rule', agent: 'tester', dependsOn: ['rules'] },
  ],
};

function candidates(count: number, error?: number): CandidateSummary[] {
  return Array.from({ length: count }, (_, index) =>
    index === error
      ? { index, subtasks: 0, levels: 0, parallelism: 0, dependencyComplexity: 0, error: 'cycle: a → b → a' }
      : { index, subtasks: 3, levels: 2, parallelism: 1.5, dependencyComplexity: 0.5 },
  );
}

const noDiff = { added: [], removed: [], changed: [], rewired: [] };

/** A run with the initial plan from 3 candidates, one update that changed nothing, and two that did. */
function events(): WeftEvent[] {
  return [
    {
      type: 'run-start',
      at: 0,
      runId: 'r',
      task: 'Build a game',
      model: 'sim:seed=1',
      strategy: 'on-failure',
      options: {},
    },
    { type: 'plan-candidates', at: 1, purpose: 'plan', candidates: candidates(3, 2) },
    { type: 'plan-chosen', at: 2, version: 1, index: 1, workflow: v1 },
    { type: 'task-start', at: 3, taskId: 'board', attempt: 1, agent: 'coder', clone: 0 },
    { type: 'plan-candidates', at: 10, purpose: 'update', candidates: candidates(2) },
    { type: 'plan-candidates', at: 20, purpose: 'update', candidates: candidates(2) },
    {
      type: 'plan-update',
      at: 25,
      version: 2,
      cause: 'board: the board is blank',
      diff: { ...noDiff, changed: ['board'], rewired: ['tests'] },
      workflow: v2,
    },
    { type: 'plan-candidates', at: 30, purpose: 'update', candidates: candidates(1) },
    { type: 'plan-update', at: 35, version: 3, cause: 'concurrent review', diff: noDiff, workflow: v3 },
    { type: 'run-end', at: 40, status: 'completed' },
  ];
}

const stored = [
  { version: 1, workflow: v1, cause: 'initial plan', createdAt: '2026-11-22T05:00:00.000Z' },
  { version: 2, workflow: v2, cause: 'board: the board is blank', createdAt: '2026-11-22T05:00:01.000Z' },
  { version: 3, workflow: v3, cause: 'concurrent review', createdAt: '2026-11-22T05:00:02.000Z' },
];

describe('planHistory', () => {
  it('lists each version with its cause, time, candidates and subtasks', () => {
    const history = planHistory(events(), stored);
    expect(
      history.versions.map((version) => [version.version, version.cause, version.createdAt, version.atMs]),
    ).toEqual([
      [1, 'initial plan', '2026-11-22T05:00:00.000Z', 2],
      [2, 'board: the board is blank', '2026-11-22T05:00:01.000Z', 25],
      [3, 'concurrent review', '2026-11-22T05:00:02.000Z', 35],
    ]);
    const [first, second, third] = history.versions;
    expect(first?.diff).toBeNull();
    expect(first?.chosen).toBe(1);
    expect(first?.candidates).toHaveLength(3);
    // The update round at 10 ms changed nothing; the one at 20 ms made version 2.
    expect(second?.candidates).toHaveLength(2);
    expect(second).not.toHaveProperty('chosen');
    expect(third?.candidates).toHaveLength(1);
    expect(history.updatesWithoutChange).toBe(1);
    expect(second?.subtasks[1]).toEqual({ id: 'rules', objective: 'Write the rules', agent: 'coder', dependsOn: [] });
  });

  it('gives each diff the old and new values', () => {
    const [, second, third] = planHistory(events(), stored).versions;
    expect(second?.diff).toEqual({
      added: [],
      removed: [],
      changed: [{ id: 'board', objective: { from: 'Draw the board', to: 'Draw the board with a canvas' } }],
      rewired: [{ id: 'tests', dependsOn: { from: ['board'], to: ['board', 'rules'] } }],
    });
    expect(third?.diff).toEqual({
      added: ['check'],
      removed: ['tests'],
      changed: [{ id: 'board', agent: { from: 'coder', to: 'designer' } }],
      rewired: [],
    });
  });

  it('agrees with the diff the executor recorded', () => {
    const [, second] = planHistory(events(), stored).versions;
    const recorded = (events()[6] as Extract<WeftEvent, { type: 'plan-update' }>).diff;
    expect(second?.diff?.changed.map((change) => change.id)).toEqual(recorded.changed);
    expect(second?.diff?.rewired.map((change) => change.id)).toEqual(recorded.rewired);
  });

  it('uses the events for a version the store has not saved, and the store for one the log lacks', () => {
    const history = planHistory(events().slice(0, 7), stored.slice(0, 1).concat(stored.slice(2)));
    expect(
      history.versions.map((version) => [version.version, version.cause, version.createdAt, version.atMs]),
    ).toEqual([
      [1, 'initial plan', '2026-11-22T05:00:00.000Z', 2],
      [2, 'board: the board is blank', null, 25],
      [3, 'concurrent review', '2026-11-22T05:00:02.000Z', null],
    ]);
    expect(history.versions[2]?.diff?.added).toEqual(['check']);
    expect(history.versions[2]).not.toHaveProperty('candidates');
  });

  it('prefers the stored workflow and cause over the event', () => {
    const history = planHistory(events(), [{ ...stored[0]!, cause: 'given plan' }]);
    expect(history.versions[0]?.cause).toBe('given plan');
  });

  it('keeps the first announcement of a version a resumed run repeats', () => {
    const log = events();
    log.push({ type: 'plan-chosen', at: 99, version: 3, index: 0, workflow: v3 });
    expect(planHistory(log, stored).versions[2]?.atMs).toBe(35);
  });

  it('has no candidates for a given plan, and counts a trailing round without change', () => {
    const history = planHistory(
      [
        { type: 'plan-chosen', at: 0, version: 1, index: 0, workflow: v1 },
        { type: 'plan-candidates', at: 5, purpose: 'update', candidates: candidates(1) },
      ],
      [],
    );
    expect(history.versions).toHaveLength(1);
    expect(history.versions[0]).not.toHaveProperty('candidates');
    expect(history.versions[0]).not.toHaveProperty('chosen');
    expect(history.versions[0]?.createdAt).toBeNull();
    expect(history.updatesWithoutChange).toBe(1);
  });

  it('is empty for a run without a plan', () => {
    expect(planHistory([], [])).toEqual({ versions: [], changes: null, updatesWithoutChange: 0 });
    expect(formatPlanHistory(planHistory([], []))).toBe('no plan recorded');
  });

  it('diffs regardless of dependency order', () => {
    const before = [{ id: 'a', objective: 'x', agent: 'w', dependsOn: ['b', 'c'] }];
    const after = [{ id: 'a', objective: 'x', agent: 'w', dependsOn: ['c', 'b', 'b'] }];
    expect(diffSubtasks(before, after)).toEqual({ added: [], removed: [], changed: [], rewired: [] });
  });
});

describe('formatPlanHistory', () => {
  it('shows candidates, the chosen one, and every change with its old and new value', () => {
    const text = formatPlanHistory(planHistory(events(), stored));
    expect(text.split('\n')).toEqual([
      'v1: initial plan (at 0.00 s)',
      '  candidates (chosen: #2):',
      '     #1 3 subtasks, 2 levels, parallelism 1.500, dep.complexity 0.500',
      '    *#2 3 subtasks, 2 levels, parallelism 1.500, dep.complexity 0.500',
      '     #3 unusable: cycle: a → b → a',
      '  3 subtasks:',
      '    board [coder]: Draw the board',
      '    rules [coder]: Write the rules',
      '    tests [tester] after board: Test everything',
      'v2: board: the board is blank (at 0.03 s)',
      '  candidates:',
      '     #1 3 subtasks, 2 levels, parallelism 1.500, dep.complexity 0.500',
      '     #2 3 subtasks, 2 levels, parallelism 1.500, dep.complexity 0.500',
      '  ~ board: "Draw the board" → "Draw the board with a canvas"',
      '  ↻ tests: after board → after board, rules',
      // board changed and tests rewired, of 3 subtasks.
      '  changed ratio 67 %',
      'v3: concurrent review (at 0.04 s)',
      '  candidates:',
      '     #1 3 subtasks, 2 levels, parallelism 1.500, dep.complexity 0.500',
      '  + check [tester] after rules: Check the win rule',
      '  - tests',
      '  ~ board: agent coder → designer',
      // check added, tests removed, board reassigned, of the 3 subtasks of v2.
      '  changed ratio 100 %',
      // Of v1's board, rules and tests, only rules was never touched; (2/3 + 3/3) / 2 per update.
      'changed: 2 of the 3 initial subtasks (67 %); mean changed ratio per update 83 %',
      '1 update round left the plan unchanged',
    ]);
  });

  it('keeps each entry on one line and says when a version changed nothing', () => {
    const text = formatPlanHistory({
      versions: [
        {
          version: 1,
          cause: 'initial\nplan',
          createdAt: null,
          atMs: null,
          diff: null,
          subtasks: [{ id: 'a', objective: `line one\nline two ${'x'.repeat(300)}`, agent: 'w', dependsOn: [] }],
          changedRatio: null,
        },
        {
          version: 2,
          cause: 'review',
          createdAt: null,
          atMs: null,
          diff: { added: [], removed: [], changed: [], rewired: [] },
          subtasks: [],
          changedRatio: null,
        },
        {
          version: 3,
          cause: 'review',
          createdAt: null,
          atMs: null,
          diff: { added: [], removed: [], changed: [], rewired: [{ id: 'a', dependsOn: { from: [], to: ['b'] } }] },
          subtasks: [],
          changedRatio: null,
        },
      ],
      changes: null,
      updatesWithoutChange: 0,
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('v1: initial plan');
    expect(lines[2]).toMatch(/^ {4}a \[w\]: line one line two x+…$/);
    expect(lines.slice(3)).toEqual(['v2: review', '  no changes', 'v3: review', '  ↻ a: after (nothing) → after b']);
  });
});
