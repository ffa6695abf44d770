/**
 * A workflow with a team role, end to end through the CLI in a child process (examples/team-workflow):
 *   cd examples/team-workflow && weft run --plan plan.json --model scripted:replies.json --home <tmp> --json
 * The `days` subtask runs through a four-agent DyLAN team; `facts` is an ordinary agent.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument, ROOT, type CliResult, type TaskJson } from './weft-cli.js';

const EXAMPLE = join(ROOT, 'examples', 'team-workflow');
/** tsx by absolute URL: a working directory outside the checkout has no node_modules to find it in. */
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;

/** `weft <args>` run from `cwd`, so the plan's relative team file resolves the same however Weft resolves it. */
function weftIn(cwd: string, args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX, join(ROOT, 'src', 'cli', 'main.ts'), ...args],
      { cwd, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

let home: string;
let run: CliResult;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-team-e2e-'));
  run = await weftIn(EXAMPLE, [
    'run',
    '--plan',
    'plan.json',
    '--model',
    'scripted:replies.json',
    '--home',
    home,
    '--json',
  ]);
}, 90_000);

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('weft run --plan with a team role', () => {
  it('completes with the unchanged --json shape, counting the team calls', () => {
    const document = jsonDocument(run);
    expect(run.code, run.stderr).toBe(0);
    expect(Object.keys(document).sort()).toEqual([
      'artifactsDir',
      'calls',
      'costUsd',
      'makespanMs',
      'outputsDir',
      'planVersion',
      'reportFile',
      'result',
      'runDir',
      'runId',
      'status',
      'tasks',
      'tokens',
      'toolCalls',
      'toolCallsFailed',
    ]);
    expect(document.status).toBe('completed');
    // facts: execute + verify; days: 4 agents × 2 steps + verify.
    expect(document.calls).toBe(11);
    const tasks = document.tasks as TaskJson[];
    expect(tasks.map((task) => [task.id, task.status, task.attempts])).toEqual([
      ['facts', 'completed', 1],
      ['days', 'completed', 1],
    ]);
    for (const task of tasks)
      expect(Object.keys(task).sort()).toEqual([
        'attempts',
        'dependsOn',
        'endMs',
        'id',
        'output',
        'outputFile',
        'startMs',
        'status',
        'toolCalls',
        'toolCallsFailed',
      ]);
  });

  it('says on stderr, as it happens, how the team ended', () => {
    expect(run.stderr).toContain('team apollo-panel on days: consensus at step 2, 8 calls');
  });

  it("shows the team's answer, layers, stop step, agents and importance in report.md", async () => {
    const runId = jsonDocument(run).runId as string;
    const report = await readFile(join(home, 'runs', runId, 'report.md'), 'utf8');
    expect(report).toContain('### days: team "apollo-panel" (role panel)');
    expect(report).toContain('- Answer: 8');
    expect(report).toContain('- Agents: historian, engineer, astronomer, skeptic');
    expect(report).toContain('Stopped at step 2 (consensus: more than 2/3 agreed); 8 calls');
    expect(report).toContain(`| skeptic | ${(1 / 4).toFixed(4)} |  | kept |`);
    expect(report).toContain('| 2 | engineer | 8 |');
  });

  it('weft show --json, folded from the stored events, counts the same calls', async () => {
    const runId = jsonDocument(run).runId as string;
    const show = await weftIn(EXAMPLE, ['show', runId, '--home', home, '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(jsonDocument(show).calls).toBe(11);
  });

  it('weft show names the team under its subtask, with how it ended', async () => {
    const runId = jsonDocument(run).runId as string;
    const show = await weftIn(EXAMPLE, ['show', runId, '--home', home]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(
      'team apollo-panel (historian, engineer, astronomer, skeptic): consensus at step 2, 8 calls',
    );
  });

  it('exits 2 naming the role and the file when the team file is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-team-missing-'));
    try {
      const plan = JSON.parse(await readFile(join(EXAMPLE, 'plan.json'), 'utf8')) as {
        roles: { name: string; team?: string }[];
      };
      plan.roles = plan.roles.map((role) => (role.name === 'panel' ? { ...role, team: 'no-such-team.yaml' } : role));
      await writeFile(join(dir, 'plan.json'), JSON.stringify(plan));
      const result = await weftIn(dir, [
        'run',
        '--plan',
        'plan.json',
        '--model',
        `scripted:${join(EXAMPLE, 'replies.json')}`,
        '--home',
        join(dir, 'home'),
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Role "panel"');
      expect(result.stderr).toContain(join(dir, 'no-such-team.yaml'));
      expect(result.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('from another folder, and with the team offered to the planner', () => {
  it("resolves the plan's relative team file against the plan file's folder, not the working directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-team-cwd-'));
    try {
      const result = await weftIn(dir, [
        'run',
        '--plan',
        join(EXAMPLE, 'plan.json'),
        '--model',
        `scripted:${join(EXAMPLE, 'replies.json')}`,
        '--home',
        join(dir, 'home'),
        '--json',
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(jsonDocument(result)).toMatchObject({ status: 'completed', calls: 11 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('weft run <task> --team: the planner gives `days` to the team, which runs it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-team-offer-'));
    try {
      const task = 'Answer a question about the Apollo 11 mission with a number a panel has checked.';
      const result = await weftIn(dir, [
        'run',
        task,
        '--team',
        join(EXAMPLE, 'team.yaml'),
        '--model',
        `scripted:${join(EXAMPLE, 'replies.json')}`,
        '--home',
        join(dir, 'home'),
        '--json',
      ]);
      expect(result.code, result.stderr).toBe(0);
      // 3 plan candidates + the 11 calls of the plan-file run.
      expect(jsonDocument(result)).toMatchObject({ status: 'completed', calls: 14 });
      expect(result.stderr).toContain('team apollo-panel on days: consensus at step 2, 8 calls');
      const runId = jsonDocument(result).runId as string;
      const plan = JSON.parse(await readFile(join(dir, 'home', 'runs', runId, 'plan-v1.json'), 'utf8')) as {
        roles: unknown[];
      };
      expect(plan.roles).toContainEqual({
        name: 'apollo-panel',
        prompt: 'Four experts who debate a question until they agree; for a number that must be checked.',
        kind: 'team',
        team: join(EXAMPLE, 'team.yaml'),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses --team with --plan, exit 2, before any run exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-team-offer-plan-'));
    try {
      const result = await weftIn(dir, [
        'run',
        '--plan',
        join(EXAMPLE, 'plan.json'),
        '--team',
        join(EXAMPLE, 'team.yaml'),
        '--model',
        'sim:seed=1',
        '--home',
        join(dir, 'home'),
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--team');
      expect(result.stderr).toContain('--plan skips planning');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
