/**
 * The run page's API over a real SQLite store holding real runs made in-process with `weft run`: a sim run whose
 * verifier forces replans (plan history), a run with a DyLAN team role (teams), and a run whose agents call module
 * tools (tool calls in the node panel). Values with `<script>` come back as JSON strings, never as markup.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { databasePath } from '../../src/store/run-paths.js';
import { openSqliteRunStore, type SqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { createDashboardApp } from '../../src/ui/dashboard-app.js';
import type { TeamRunView } from '../../src/ui/team-runs.js';
import { cli } from '../cli/cli-harness.js';

const TOKEN = 'test-token-run-page';
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const JUDGE = 'Judge <b>the</b> facts.';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tools');

let home: string;
let store: SqliteRunStore;
let app: Hono;
const ids: Record<'replan' | 'team' | 'tools', string> = { replan: '', team: '', tools: '' };

async function runJson(args: string[]): Promise<string> {
  const result = await cli(['run', ...args, '--home', home, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { runId: string }).runId;
}

function get(path: string) {
  return app.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });
}

async function getJson<T>(path: string): Promise<T> {
  const response = await get(path);
  expect(response.status, path).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as T;
}

type Subtask = { id: string; objective: string };
type Diff = Record<'added' | 'removed' | 'changed' | 'rewired', string[]>;
type PlansBody = { versions: { version: number; cause: string; diff?: Diff; workflow: { subtasks: Subtask[] } }[] };
type LayoutBody = { version: number; layout: { nodes: { id: string }[] } };
type TeamRun = TeamRunView;
type TeamsBody = { teams: { taskId: string; runs: TeamRun[] }[] };
type TaskBody = {
  objective?: string;
  calls: number;
  toolCalls: number;
  toolCallsFailed: number;
  attempts: {
    calls: number;
    team?: TeamRun;
    toolCalls: { name: string; ok?: boolean; durationMs?: number; result?: unknown; error?: string }[];
  }[];
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'weft-ui-runpage-'));
  ids.replan = await runJson([`plan ${XSS}`, '--model', 'sim:seed=3,fail=0.4,tasks=6']);

  writeFileSync(
    join(home, 'team.yaml'),
    [
      'name: panel',
      'answerKind: text',
      'maxSteps: 4',
      'reformAt: 1',
      'keep: 2',
      'agents:',
      ...['alpha', 'beta', 'gamma', 'delta'].flatMap((name) => [`  - name: ${name}`, `    prompt: You are ${name}.`]),
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(home, 'team-plan.json'),
    JSON.stringify({
      task: 'Team demo <img src=x onerror=alert(4)>',
      roles: [
        { name: 'writer', prompt: 'You write.' },
        { name: 'panel', prompt: 'A panel.', kind: 'team', team: join(home, 'team.yaml') },
      ],
      subtasks: [
        { id: 'facts', objective: 'Collect facts.', agent: 'writer', dependsOn: [] },
        // This seed, task and objective make a team that disagrees at step 1, so the reformation runs.
        { id: 'judge', objective: JUDGE, agent: 'panel', dependsOn: ['facts'] },
      ],
    }),
  );
  ids.team = await runJson(['--plan', join(home, 'team-plan.json'), '--model', 'sim:seed=4,accuracy=0.5']);

  writeFileSync(
    join(home, 'tools.yaml'),
    `tools:\n  - kind: module\n    path: ${JSON.stringify(join(FIXTURES, 'math-tools.mjs'))}\n    exports: [add, divide]\n`,
  );
  writeFileSync(
    join(home, 'tools-plan.json'),
    JSON.stringify({
      task: 'count',
      roles: [{ name: 'calc', prompt: 'You count.', tools: ['add', 'divide'] }],
      subtasks: [{ id: 'sum', objective: 'Add things.', agent: 'calc', dependsOn: [] }],
    }),
  );
  ids.tools = await runJson([
    '--plan',
    join(home, 'tools-plan.json'),
    '--tools',
    join(home, 'tools.yaml'),
    '--model',
    'sim:seed=2,toolcalls=3,toolbadargs=0.4',
  ]);

  store = openSqliteRunStore(databasePath(home));
  app = createDashboardApp({ store, token: TOKEN, assets: new Map() });
}, 60_000);

afterAll(async () => {
  await store?.close();
});

describe('plan history', () => {
  it('serves every version with its cause and the diff from the one before, and a layout per version', async () => {
    const { versions } = await getJson<PlansBody>(`/api/runs/${ids.replan}/plans`);
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(versions[0]!.diff).toBeUndefined();
    for (const [index, version] of versions.entries()) {
      expect(version.version).toBe(index + 1);
      expect(typeof version.cause).toBe('string');
      if (index === 0) continue;
      const diff = version.diff!;
      // The verifier's replans revise the failed subtask's objective.
      expect(diff.changed.length + diff.added.length + diff.removed.length + diff.rewired.length).toBeGreaterThan(0);
      const layout = await getJson<LayoutBody>(`/api/runs/${ids.replan}/layout?version=${version.version}`);
      expect(layout.version).toBe(version.version);
      expect(layout.layout.nodes.map((node) => node.id).sort()).toEqual(
        version.workflow.subtasks.map((subtask) => subtask.id).sort(),
      );
    }
    // The task's markup is data: the objectives carry it verbatim as JSON strings.
    expect(versions[0]!.workflow.subtasks[0]!.objective).toContain(XSS);
    expect((await get(`/api/runs/${ids.replan}/layout?version=99`)).status).toBe(404);
  });
});

describe('teams', () => {
  it('serves each team subtask: layers, kept and dropped, the ranker, importance by standing', async () => {
    const { teams } = await getJson<TeamsBody>(`/api/runs/${ids.team}/teams`);
    expect(teams.map((task) => task.taskId)).toEqual(['judge']);
    const run = teams[0]!.runs[0]!;
    const reformation = run.reformation!;
    expect(run.attempt).toBe(1);
    expect(run.members).toEqual(['alpha', 'beta', 'gamma', 'delta']);
    expect(run.layers[0]!.map((node) => node.agent)).toEqual(['alpha', 'beta', 'gamma', 'delta']);
    expect(reformation.kept).toHaveLength(2);
    expect(reformation.afterStep).toBe(1);
    expect(typeof reformation.reason).toBe('string');
    // After the reformation only the kept agents answer.
    for (const layer of run.layers.slice(1))
      expect(layer.map((node) => node.agent).sort()).toEqual([...reformation.kept].sort());
    const standings = Object.fromEntries(run.agents.map((agent) => [agent.agent, agent.standing]));
    for (const agent of reformation.kept) expect(standings[agent]).toBe('kept');
    for (const agent of reformation.dropped) expect(standings[agent]).toBe('dropped');
    const scores = run.agents.map((agent) => agent.importance ?? 0);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(['consensus', 'max-steps']).toContain(run.stopReason);
  });

  it('puts the team on its attempt in the node panel, counting the agents calls for the subtask', async () => {
    const detail = await getJson<TaskBody>(`/api/runs/${ids.team}/tasks/judge`);
    expect(detail.objective).toBe(JUDGE);
    const attempt = detail.attempts[0]!;
    expect(attempt.team?.team).toBe('panel');
    // The team's own calls plus the verifier's.
    expect(attempt.calls).toBe(attempt.team!.calls + 1);
    expect(detail.calls).toBe(attempt.calls);
  });

  it('answers an empty list for a run without teams, and 404 for an unknown run', async () => {
    expect(await getJson<TeamsBody>(`/api/runs/${ids.replan}/teams`)).toEqual({ teams: [] });
    const missing = await get('/api/runs/nope/teams');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect((await app.request(`/api/runs/${ids.team}/teams`)).status).toBe(401);
  });
});

describe('tool calls in the node panel', () => {
  it('shows each call with its arguments and its result or error', async () => {
    const detail = await getJson<TaskBody>(`/api/runs/${ids.tools}/tasks/sum`);
    const calls = detail.attempts.flatMap((attempt) => attempt.toolCalls);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const call of calls) {
      expect(['add', 'divide']).toContain(call.name);
      expect(typeof call.ok).toBe('boolean');
      expect(typeof call.durationMs).toBe('number');
      if (call.ok) expect(call.result).toBeDefined();
      else expect(typeof call.error).toBe('string');
    }
    // toolbadargs makes some arguments break the schema: the tool refuses them, and the error is shown.
    expect(calls.some((call) => !call.ok && call.error?.includes('must be'))).toBe(true);
    expect(calls.some((call) => call.ok)).toBe(true);
    // The subtask's counts over its attempts, as `weft show --json` gives them.
    expect(detail.toolCalls).toBe(calls.length);
    expect(detail.toolCallsFailed).toBe(calls.filter((call) => call.ok === false).length);
    // The runs list tallies the same run's calls (sum is its only subtask with tools).
    const { runs } = await getJson<{ runs: { runId: string; toolCalls: number; toolCallsFailed: number }[] }>(
      '/api/runs',
    );
    expect(runs.find((run) => run.runId === ids.tools)).toMatchObject({
      toolCalls: detail.toolCalls,
      toolCallsFailed: detail.toolCallsFailed,
    });
  });
});
