/**
 * Team roles in workflows: a subtask whose agent is a `kind: team` role runs through DyLAN, its calls
 * count in the run, its importance scores go to the store, and report.md shows what the team did.
 *
 * The scenario is examples/team-workflow (plan.json, team.yaml, replies.json): four agents answer 8, 9, 8, 7 at
 * step 1 (no consensus), then 8, 8, 8, 9 at step 2 rating every step-1 response 3 (3 of 4 agree: stop).
 * Importance by hand (docs/algorithms.md#importance-scores): at step 2 the final answer 8 is shared by historian,
 * engineer and astronomer, 1/3 each; equal ratings spread each over the 4 step-1 nodes, so every step-1 node gets
 * 3 · 1/3 · 1/4 = 1/4. Totals: 1/3 + 1/4 = 7/12 for the three, 1/4 for the skeptic.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { parseWorkflow } from '../../src/graph/index.js';
import type { Workflow } from '../../src/graph/workflow.js';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { loadScriptedModel, parseScriptFile, scriptedModel, type ScriptedReply } from '../../src/llm/scripted-model.js';
import type { TeamSummary, WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask, type RunTaskOptions } from '../../src/run/run-task.js';
import { createTeamAttemptRunner } from '../../src/team/team-attempt.js';
import { loadTeamOffers } from '../../src/team/team-checks.js';
import { selectTeamMembers } from '../../src/team/team-selection.js';
import { defaultRoleKinds } from '../../src/role-kinds.js';
import type { ChatResult } from '../../src/llm/chat-model.js';
import { openSqliteRunStore, type SqliteRunStore } from '../../src/store/sqlite-run-store.js';

const EXAMPLE = resolve('examples/team-workflow');
/** The CLI's role kinds (the team engine): a library run is given them explicitly. */
const roleKinds = defaultRoleKinds();
const PLAN_FILE = join(EXAMPLE, 'plan.json');
const AGENTS = ['historian', 'engineer', 'astronomer', 'skeptic'];
const IMPORTANCE: Record<string, number> = { historian: 7 / 12, engineer: 7 / 12, astronomer: 7 / 12, skeptic: 1 / 4 };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-team-role-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function setup(): Promise<{ home: string; store: SqliteRunStore }> {
  const home = await tempDir();
  const store = openSqliteRunStore(join(home, 'weft.db'));
  cleanup.push(() => store.close());
  return { home, store };
}

async function readPlan(file: string): Promise<Workflow> {
  const parsed = parseWorkflow(await readFile(file, 'utf8'), { file });
  if (!parsed.ok) throw new Error(`bad plan ${file}: ${JSON.stringify(parsed.issues)}`);
  return parsed.workflow;
}

async function exampleReplies(): Promise<ScriptedReply[]> {
  return parseScriptFile(await readFile(join(EXAMPLE, 'replies.json'), 'utf8'));
}

async function runExample(store: SqliteRunStore, home: string, extra: Partial<RunTaskOptions> = {}) {
  const plan = await readPlan(PLAN_FILE);
  const events: WeftEvent[] = [];
  const result = await runTask({
    task: plan.task,
    plan,
    planFile: PLAN_FILE,
    model: await loadScriptedModel(join(EXAMPLE, 'replies.json')),
    store,
    home,
    onEvent: (event) => events.push(event),
    ...extra,
    roles: { kinds: roleKinds },
  });
  return { result, events };
}

const teamEvents = (events: readonly WeftEvent[]): TeamSummary[] =>
  events.flatMap((event) => (event.type === 'team' ? [event] : []));
const callEvents = (events: readonly WeftEvent[]) =>
  events.flatMap((event) => (event.type === 'model-call' ? [event] : []));

describe('a workflow subtask run by a team', () => {
  it("outputs the team's majority answer, counts its calls in the run and files them under the subtask", async () => {
    const { home, store } = await setup();
    const { result, events } = await runExample(store, home);
    expect(result.status).toBe('completed');
    expect(result.workflow?.subtasks.find((s) => s.id === 'days')?.output).toBe('8');

    const calls = callEvents(events);
    const teamCalls = calls.filter((call) => call.key?.startsWith('days/team/'));
    // 4 agents × 2 steps; no ranker (the team stopped before the reformation step).
    expect(teamCalls).toHaveLength(8);
    expect(teamCalls.every((call) => call.purpose === 'answer' && call.attempt === 1)).toBe(true);
    expect(new Set(teamCalls.map((call) => call.key?.split('/')[2]))).toEqual(new Set(AGENTS));
    // facts: execute + verify; days: the team + verify.
    expect(result.calls).toBe(calls.length);
    expect(result.calls).toBe(2 + teamCalls.length + 1);
    expect(result.tokens.input).toBe(calls.reduce((sum, call) => sum + call.inputTokens, 0));

    const [team] = teamEvents(events);
    expect(team).toMatchObject({
      taskId: 'days',
      attempt: 1,
      role: 'panel',
      team: 'apollo-panel',
      taskType: 'general',
      kind: 'exact',
      stoppedAt: 2,
      stopReason: 'consensus',
      calls: 8,
    });
    expect(team?.file).toBe(join(EXAMPLE, 'team.yaml'));
    expect(team?.layers.map((layer) => layer.map((node) => `${node.agent}=${node.answer}`))).toEqual([
      ['historian=8', 'engineer=9', 'astronomer=8', 'skeptic=7'],
      ['historian=8', 'engineer=8', 'astronomer=8', 'skeptic=9'],
    ]);
    for (const agent of AGENTS) expect(team?.importance[agent]).toBeCloseTo(IMPORTANCE[agent]!, 12);
    expect(team?.scores).toEqual({ saved: true });
    // The team's detail comes before the subtask's end.
    const teamAt = events.findIndex((event) => event.type === 'team');
    const endAt = events.findIndex((event) => event.type === 'task-end' && event.taskId === 'days');
    expect(teamAt).toBeGreaterThan(-1);
    expect(teamAt).toBeLessThan(endAt);
  });

  it("saves the importance under the role's taskType when it names one (trimmed, like --task-type)", async () => {
    const { home, store } = await setup();
    const plan = await readPlan(PLAN_FILE);
    const typed: Workflow = {
      ...plan,
      roles: plan.roles.map((role) => (role.kind === 'team' ? { ...role, taskType: 'dates ' } : role)),
    };
    const events: WeftEvent[] = [];
    await runTask({
      task: plan.task,
      plan: typed,
      planFile: PLAN_FILE,
      model: await loadScriptedModel(join(EXAMPLE, 'replies.json')),
      store,
      home,
      onEvent: (event) => events.push(event),
      roles: { kinds: roleKinds },
    });
    expect(teamEvents(events)[0]?.taskType).toBe('dates');
    expect((await store.teamScores('apollo-panel', 'dates')).map((score) => score.agent)).toEqual([
      'astronomer',
      'engineer',
      'historian',
      'skeptic',
    ]);
    expect(await store.teamScores('apollo-panel', 'general')).toEqual([]);
  });

  it('saves the importance under (team, general) and adds to it on the next run', async () => {
    const { home, store } = await setup();
    await runExample(store, home);
    const first = await store.teamScores('apollo-panel', 'general');
    expect(first.map((score) => score.agent)).toEqual(['astronomer', 'engineer', 'historian', 'skeptic']);
    for (const score of first) {
      expect(score.queries).toBe(1);
      expect(score.mean).toBeCloseTo(IMPORTANCE[score.agent]!, 12);
    }
    const { events } = await runExample(store, home);
    const second = await store.teamScores('apollo-panel', 'general');
    expect(second.map((score) => [score.agent, score.queries])).toEqual(first.map((score) => [score.agent, 2]));
    for (const score of second) expect(score.importance).toBeCloseTo(2 * IMPORTANCE[score.agent]!, 12);
    // Four agents are no more than the optimised size: the stored scores do not drop anyone.
    const [team] = teamEvents(events);
    expect(team?.selection.optimized).toBe(false);
    expect(team?.selection.reason).toContain('no more than the optimised size 4');
    expect(team?.members).toEqual(AGENTS);
  });

  it('writes the layers, stop step, agents and importance of the team into report.md', async () => {
    const { home, store } = await setup();
    const { result } = await runExample(store, home);
    const report = await readFile(join(result.runDir, 'report.md'), 'utf8');
    expect(report).toContain('## Teams');
    expect(report).toContain('### days: team "apollo-panel" (role panel)');
    expect(report).toContain(`Team file: \`${join(EXAMPLE, 'team.yaml')}\``);
    expect(report).toContain('Stopped at step 2 (consensus: more than 2/3 agreed); 8 calls');
    expect(report).toContain('no stored importance scores for team "apollo-panel", task type "general"');
    expect(report).toContain('Importance scores added to the run store');
    expect(report).toContain(`| historian | ${(7 / 12).toFixed(4)} |  | kept |`);
    expect(report).toContain(`| skeptic | ${(1 / 4).toFixed(4)} |  | kept |`);
    expect(report).toContain('| 1 | engineer | 9 |');
    expect(report).toContain('| 2 | skeptic | 9 |');
  });

  it('runs the optimised team when stored scores rank a larger pool, and says why', async () => {
    const { home, store } = await setup();
    const dir = await tempDir();
    await copyFile(PLAN_FILE, join(dir, 'plan.json'));
    const pool = `${await readFile(join(EXAMPLE, 'team.yaml'), 'utf8')}  - name: poet\n    prompt: You are the poet.\n`;
    await writeFile(join(dir, 'team.yaml'), pool);
    await store.saveTeamScores({
      team: 'apollo-panel',
      taskType: 'general',
      scores: [
        { agent: 'historian', importance: 3, queries: 4 },
        { agent: 'engineer', importance: 2, queries: 4 },
        { agent: 'astronomer', importance: 2.5, queries: 4 },
        { agent: 'skeptic', importance: 1, queries: 4 },
        { agent: 'poet', importance: 0.5, queries: 4 },
        { agent: 'retired', importance: 9, queries: 1 },
      ],
    });
    // The script has no reply for the poet: calling it would fail the run.
    const { result, events } = await runExample(store, home, { planFile: join(dir, 'plan.json') });
    expect(result.status).toBe('completed');
    const [team] = teamEvents(events);
    expect(team?.pool).toEqual([...AGENTS, 'poet']);
    expect(team?.members).toEqual(AGENTS);
    expect(team?.selection).toMatchObject({ optimized: true, leftOut: ['poet'] });
    // An agent no longer in the file ("retired") plays no part, however high its score.
    expect(team?.selection.scores?.map((score) => score.agent)).toEqual([
      'historian',
      'astronomer',
      'engineer',
      'skeptic',
      'poet',
    ]);
    expect(team?.selection.reason).toContain('optimised team: the top 4 of 5 agents by mean importance');
    expect(team?.selection.reason).toContain('left out poet (mean 0.125 over 4 queries)');
    // No `weft team optimize --k` recorded a size: DyLAN's 4, and the reason says so.
    expect(team?.selection.reason).toContain("(DyLAN's default team size 4: no `weft team optimize --k` recorded one)");
    expect(callEvents(events).some((call) => call.key?.includes('/team/poet/'))).toBe(false);
    const report = await readFile(join(result.runDir, 'report.md'), 'utf8');
    expect(report).toContain('left out: poet');
    expect(report).toContain('| poet |  | 0.1250 (4) | left out |');
    expect(report).toContain('| historian | 0.5833 | 0.7500 (4) | kept |');
  });

  it('runs the top k that the latest `weft team optimize --k` recorded, and says where k came from', async () => {
    const { home, store } = await setup();
    const dir = await tempDir();
    await copyFile(PLAN_FILE, join(dir, 'plan.json'));
    await writeFile(
      join(dir, 'team.yaml'),
      `${await readFile(join(EXAMPLE, 'team.yaml'), 'utf8')}  - name: poet\n    prompt: You are the poet.\n`,
    );
    const scores = [
      { agent: 'historian', importance: 3, queries: 4 },
      { agent: 'engineer', importance: 2, queries: 4 },
      { agent: 'astronomer', importance: 2.5, queries: 4 },
      { agent: 'skeptic', importance: 1, queries: 4 },
      { agent: 'poet', importance: 0.5, queries: 4 },
    ];
    await store.saveTeamScores({ team: 'apollo-panel', taskType: 'general', scores, k: 3 });
    // A later optimisation's k wins.
    await store.saveTeamScores({ team: 'apollo-panel', taskType: 'general', scores: [], k: 2 });
    const { result, events } = await runExample(store, home, { planFile: join(dir, 'plan.json') });
    expect(result.status).toBe('completed');
    expect(result.workflow?.subtasks.find((s) => s.id === 'days')?.output).toBe('8');
    const [team] = teamEvents(events);
    // historian (0.75) and astronomer (0.625); both answer 8 at step 1: consensus.
    expect(team?.members).toEqual(['historian', 'astronomer']);
    expect(team?.selection).toMatchObject({ optimized: true, leftOut: ['engineer', 'skeptic', 'poet'] });
    expect(team?.selection.reason).toContain('optimised team: the top 2 of 5 agents by mean importance');
    expect(team?.selection.reason).toContain('(team size 2 set by `weft team optimize --k 2`)');
    expect(team).toMatchObject({ stoppedAt: 1, calls: 2 });
    // The workflow's own save adds to the scores and leaves the size alone.
    expect(await store.teamSize('apollo-panel', 'general')).toBe(2);
    expect(
      (await store.teamScores('apollo-panel', 'general')).find((score) => score.agent === 'historian')?.queries,
    ).toBe(5);
  });

  it('counts team calls against the call budget', async () => {
    const { home, store } = await setup();
    const { result, events } = await runExample(store, home, { budget: { maxCalls: 5 } });
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('call budget of 5 reached');
    expect(result.calls).toBe(5);
    expect(callEvents(events).filter((call) => call.key?.startsWith('days/team/'))).toHaveLength(3);
    expect(
      events.some((event) => event.type === 'task-end' && event.taskId === 'days' && event.outcome === 'refused'),
    ).toBe(true);
  });

  it('replays the recorded team calls on resume instead of making them again', async () => {
    const { home, store } = await setup();
    const controller = new AbortController();
    let answers = 0;
    const { result: cancelled } = await runExample(store, home, {
      signal: controller.signal,
      onEvent: (event) => {
        // Cancel once the four step-1 answers are recorded: step 2 never starts.
        if (event.type === 'model-call' && event.purpose === 'answer' && ++answers === 4) controller.abort();
      },
    });
    expect(cancelled.status).toBe('cancelled');
    expect(await store.teamScores('apollo-panel', 'general')).toEqual([]);

    // A script without the step-1 answers: they must come from the log.
    const step1 = new Set(AGENTS.map((_, index) => 2 * index + 1));
    const replies = (await exampleReplies()).filter((_, index) => index !== 0 && !step1.has(index));
    const model = scriptedModel(replies);
    const events: WeftEvent[] = [];
    const resumed = await resumeRun({
      runId: cancelled.runId,
      model,
      store,
      home,
      onEvent: (event) => events.push(event),
      roles: { kinds: roleKinds },
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.workflow?.subtasks.find((s) => s.id === 'days')?.output).toBe('8');
    expect(model.calls.filter((call: ChatCall) => call.tag?.purpose === 'answer')).toHaveLength(4);
    // Nothing counted twice: the whole run made 11 calls, as without the interruption.
    expect(resumed.calls).toBe(11);
    const [team] = teamEvents(events);
    for (const agent of AGENTS) expect(team?.importance[agent]).toBeCloseTo(IMPORTANCE[agent]!, 12);
    expect((await store.teamScores('apollo-panel', 'general')).map((score) => score.queries)).toEqual([1, 1, 1, 1]);
  });
});

describe('team files that cannot be used', () => {
  async function planWithTeam(team: string): Promise<{ dir: string; planFile: string; plan: Workflow }> {
    const dir = await tempDir();
    const json = JSON.parse(await readFile(PLAN_FILE, 'utf8')) as { roles: { name: string; team?: string }[] };
    json.roles = json.roles.map((role) => (role.name === 'panel' ? { ...role, team } : role));
    const planFile = join(dir, 'plan.json');
    await writeFile(planFile, JSON.stringify(json, null, 2));
    return { dir, planFile, plan: await readPlan(planFile) };
  }

  async function failure(store: SqliteRunStore, home: string, plan: Workflow, planFile: string): Promise<WeftError> {
    const error = await runTask({
      task: plan.task,
      plan,
      planFile,
      model: scriptedModel([]),
      store,
      home,
      roles: { kinds: roleKinds },
    }).then(
      () => undefined,
      (failed: unknown) => failed as WeftError,
    );
    if (!error) throw new Error('expected runTask to fail');
    return error;
  }

  it('a missing team file is BAD_INPUT naming the role and the file, before any run exists', async () => {
    const { home, store } = await setup();
    const { dir, plan, planFile } = await planWithTeam('teams/missing.yaml');
    const error = await failure(store, home, plan, planFile);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain('Role "panel"');
    expect(error.message).toContain(join(dir, 'teams', 'missing.yaml'));
    expect(error.message).toContain('no such file');
    expect(error.location?.file).toBe(join(dir, 'teams', 'missing.yaml'));
    expect(await store.listRuns()).toEqual([]);
  });

  it('an invalid team file is BAD_INPUT located in the team file', async () => {
    const { home, store } = await setup();
    const { dir, plan, planFile } = await planWithTeam('bad.yaml');
    await writeFile(join(dir, 'bad.yaml'), 'name: broken\nagents:\n  - name: a\n    promt: hello\n');
    const error = await failure(store, home, plan, planFile);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain('Role "panel"');
    expect(error.message).toContain(join(dir, 'bad.yaml'));
    expect(
      error.issues.some(
        (issue) => issue.file === join(dir, 'bad.yaml') && issue.line === 4 && issue.field === 'agents[0].promt',
      ),
    ).toBe(true);
    expect(await store.listRuns()).toEqual([]);
  });

  it('a team model that cannot be made (no API key) is BAD_INPUT naming the file and the field, before any run exists', async () => {
    const { home, store } = await setup();
    const { dir, plan, planFile } = await planWithTeam('keyed.yaml');
    await writeFile(
      join(dir, 'keyed.yaml'),
      'name: keyed\nagents:\n  - name: a\n    prompt: You are a.\n    model: openai:gpt-4o-mini\n  - name: b\n    prompt: You are b.\n',
    );
    const createModel = async (spec: string) => {
      throw new WeftError('BAD_INPUT', `The model ${spec} needs an API key: set OPENAI_API_KEY`);
    };
    const error = await runTask({
      task: plan.task,
      plan,
      planFile,
      model: scriptedModel([]),
      store,
      home,
      roles: { kinds: roleKinds, createModel: createModel },
    }).then(
      () => undefined,
      (failed: unknown) => failed as WeftError,
    );
    expect(error).toMatchObject({
      code: 'BAD_INPUT',
      location: { file: join(dir, 'keyed.yaml'), field: 'agents[0].model' },
    });
    expect(error?.message).toContain('Role "panel"');
    expect(error?.message).toContain(
      '"openai:gpt-4o-mini" (agents[0].model) cannot be used: The model openai:gpt-4o-mini needs an API key',
    );
    expect(await store.listRuns()).toEqual([]);
  });
});

describe('team files and runs that outlive their folder', () => {
  it('a saved plan version names the team file absolutely', async () => {
    const { home, store } = await setup();
    const { result } = await runExample(store, home);
    const [version] = await store.planVersions(result.runId);
    expect(version?.workflow.roles?.find((role) => role.name === 'panel')?.team).toBe(join(EXAMPLE, 'team.yaml'));
  });

  it('resume refuses, leaving the run resumable, when a team file has gone; and resumes once it is back', async () => {
    const { home, store } = await setup();
    const dir = await tempDir();
    for (const name of ['plan.json', 'team.yaml', 'replies.json']) await copyFile(join(EXAMPLE, name), join(dir, name));
    const controller = new AbortController();
    let answers = 0;
    const cancelled = await runTask({
      task: 'T',
      plan: await readPlan(join(dir, 'plan.json')),
      planFile: join(dir, 'plan.json'),
      model: await loadScriptedModel(join(dir, 'replies.json')),
      store,
      home,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'model-call' && event.purpose === 'answer' && ++answers === 4) controller.abort();
      },
      roles: { kinds: roleKinds },
    });
    expect(cancelled.status).toBe('cancelled');
    await rm(join(dir, 'team.yaml'));
    const model = await loadScriptedModel(join(dir, 'replies.json'));
    const error = await resumeRun({ runId: cancelled.runId, model, store, home, roles: { kinds: roleKinds } }).then(
      () => undefined,
      (failed: unknown) => failed as WeftError,
    );
    expect(error).toMatchObject({ code: 'BAD_INPUT', location: { file: join(dir, 'team.yaml') } });
    expect((await store.getRun(cancelled.runId))?.status).toBe('cancelled');
    expect(model.calls).toEqual([]);
    await copyFile(join(EXAMPLE, 'team.yaml'), join(dir, 'team.yaml'));
    const resumed = await resumeRun({ runId: cancelled.runId, model, store, home, roles: { kinds: roleKinds } });
    expect(resumed.status).toBe('completed');
  });
});

describe('a plan update that gives a subtask to a team role', () => {
  it('is applied, and the reassigned subtask runs through the team; the inspector cannot redefine the team', async () => {
    const { home, store } = await setup();
    const team = await exampleReplies();
    const teamFile = join(EXAMPLE, 'team.yaml');
    // `days` starts with the researcher; its verification asks for a re-plan; the revision gives it to a panel.
    const model = scriptedModel((call) => {
      const prompt = `${call.system ?? ''}\n${call.messages.map((m) => m.content).join('\n')}`;
      switch (call.tag?.purpose) {
        case 'execute':
          return call.tag.key === 'days'
            ? 'About 8 days, I think.'
            : 'Launched 16 July 1969, splashed down 24 July 1969.';
        case 'verify':
          return call.tag.key === 'days' && call.tag.attempt === 1
            ? JSON.stringify({ verdict: 'replan', reason: 'a number like this needs a panel' })
            : JSON.stringify({ verdict: 'accept', reason: 'ok' });
        case 'update':
          return JSON.stringify({
            // Redeclaring the team as an ordinary agent is ignored: team roles are the user's.
            roles: [{ name: 'panel', prompt: 'A single expert.' }],
            subtasks: [
              {
                id: 'facts',
                objective: 'Collect the launch and splashdown dates of Apollo 11.',
                agent: 'researcher',
                dependsOn: [],
              },
              {
                id: 'days',
                objective: 'How many days did Apollo 11 last? Answer with a whole number.',
                agent: 'panel',
                dependsOn: ['facts'],
              },
            ],
          });
        case 'answer': {
          const step = prompt.includes("The team's latest responses") ? 1 : 0;
          const entries = team.filter((reply) => typeof reply.when === 'string' && prompt.includes(reply.when));
          const reply = entries[step];
          if (!reply) throw new Error(`no scripted answer for: ${prompt.slice(0, 80)}`);
          return reply.text;
        }
        default:
          throw new Error(`unexpected call ${call.tag?.purpose}`);
      }
    });
    const plan = await readPlan(PLAN_FILE);
    // The team role is in the plan (as `--team` offers put it there) but no subtask uses it yet.
    const start: Workflow = {
      ...plan,
      roles: plan.roles.map((role) => (role.kind === 'team' ? { ...role, team: teamFile } : role)),
      subtasks: plan.subtasks.map((s) => (s.id === 'days' ? { ...s, agent: 'researcher' } : s)),
    };
    const events: WeftEvent[] = [];
    const result = await runTask({
      task: plan.task,
      plan: start,
      model,
      store,
      home,
      onEvent: (event) => events.push(event),
      roles: { kinds: roleKinds },
      run: { candidates: 1 },
    });
    expect(result.status).toBe('completed');
    const update = events.find((event) => event.type === 'plan-update');
    expect(
      update?.type === 'plan-update' && update.workflow.roles?.find((role) => role.name === 'panel'),
    ).toMatchObject({ kind: 'team', team: teamFile });
    expect(update?.type === 'plan-update' && update.cause).not.toContain('revision ignored');
    const starts = events.flatMap((event) =>
      event.type === 'task-start' && event.taskId === 'days' ? [event.agent] : [],
    );
    expect(starts).toEqual(['researcher', 'panel']);
    expect(teamEvents(events).map((team) => [team.taskId, team.attempt, team.stoppedAt])).toEqual([['days', 2, 2]]);
    expect(result.workflow?.subtasks.find((s) => s.id === 'days')?.output).toBe('8');
  });
});

describe('a team role the inspector invents', () => {
  it('runs as an ordinary agent with its prompt: a model never chooses a team file', async () => {
    const { home, store } = await setup();
    const model = scriptedModel((call) => {
      switch (call.tag?.purpose) {
        case 'execute':
          return call.tag.key === 'days' && call.tag.attempt === 2
            ? '8'
            : 'Launched 16 July 1969, splashed down 24 July 1969.';
        case 'verify':
          return call.tag.key === 'days' && call.tag.attempt === 1
            ? JSON.stringify({ verdict: 'replan', reason: 'needs a jury' })
            : JSON.stringify({ verdict: 'accept', reason: 'ok' });
        case 'update':
          return JSON.stringify({
            roles: [{ name: 'jury', prompt: 'You are the jury.', kind: 'team', team: join(EXAMPLE, 'team.yaml') }],
            subtasks: [
              {
                id: 'facts',
                objective: 'Collect the launch and splashdown dates of Apollo 11.',
                agent: 'researcher',
                dependsOn: [],
              },
              {
                id: 'days',
                objective: 'How many days did Apollo 11 last? Answer with a whole number.',
                agent: 'jury',
                dependsOn: ['facts'],
              },
            ],
          });
        default:
          throw new Error(`unexpected call ${call.tag?.purpose}`);
      }
    });
    const plan = await readPlan(PLAN_FILE);
    const start: Workflow = {
      ...plan,
      roles: plan.roles.filter((role) => role.kind !== 'team'),
      subtasks: plan.subtasks.map((s) => (s.id === 'days' ? { ...s, agent: 'researcher' } : s)),
    };
    const events: WeftEvent[] = [];
    const result = await runTask({
      task: plan.task,
      plan: start,
      model,
      store,
      home,
      onEvent: (event) => events.push(event),
      roles: { kinds: roleKinds },
      run: { candidates: 1 },
    });
    expect(result.status).toBe('completed');
    const update = events.find((event) => event.type === 'plan-update');
    expect(update?.type === 'plan-update' && update.workflow.roles?.find((role) => role.name === 'jury')).toEqual({
      name: 'jury',
      prompt: 'You are the jury.',
      kind: 'llm',
    });
    expect(teamEvents(events)).toEqual([]);
    expect(callEvents(events).filter((call) => call.key?.startsWith('days/team/'))).toEqual([]);
  });
});

describe('team attempts without a full run', () => {
  const attempt = () => ({
    task: 'T',
    id: 'days',
    objective: 'How many days?',
    role: { name: 'panel', prompt: 'p', kind: 'team' as const, team: 'team.yaml' },
    parents: [],
    attempt: 1,
    verify: false,
    mask: false,
    signal: new AbortController().signal,
  });

  it('does not add to the stored scores when every call was replayed from the log', async () => {
    const { store } = await setup();
    const replies = await exampleReplies();
    // The same result objects the log would hold: a replayed call returns exactly what was recorded.
    const recorded = new Map<string, ChatResult>();
    const model = {
      id: 'scripted:replay',
      kind: 'scripted' as const,
      async generate(call: ChatCall): Promise<ChatResult> {
        const prompt = `${call.system ?? ''}\n${call.messages.map((m) => m.content).join('\n')}`;
        const agentReplies = replies.filter((reply) => typeof reply.when === 'string' && prompt.includes(reply.when));
        const index = prompt.includes("The team's latest responses") ? 1 : 0;
        const key = `${call.tag?.key}#${index}`;
        let result = recorded.get(key);
        if (!result)
          recorded.set(
            key,
            (result = { text: agentReplies[index]!.text, usage: { inputTokens: 1, outputTokens: 1 }, model: 'replay' }),
          );
        return result;
      },
    };
    const emitted: TeamSummary[] = [];
    const first = createTeamAttemptRunner({ teamBase: EXAMPLE, model, store, emit: (event) => emitted.push(event) });
    const outcome = await first({ ...attempt(), model });
    expect(outcome).toMatchObject({ kind: 'verified', output: '8' });
    const replayed = createTeamAttemptRunner({
      teamBase: EXAMPLE,
      model,
      store,
      replay: recorded,
      emit: (event) => emitted.push(event),
    });
    await replayed({ ...attempt(), model });
    expect(emitted.map((event) => event.scores.saved)).toEqual([true, false]);
    expect(emitted[1]?.scores.reason).toContain('replayed');
    expect((await store.teamScores('apollo-panel', 'general')).map((score) => score.queries)).toEqual([1, 1, 1, 1]);
  });
});

describe('selectTeamMembers', () => {
  const score = (agent: string, mean: number, queries = 2) => ({
    agent,
    importance: mean * queries,
    queries,
    mean,
    updatedAt: '2026-01-01T00:00:00.000Z',
  });
  const pool = ['a', 'b', 'c', 'd', 'e', 'f'];
  const six = [score('f', 0.9), score('a', 0.1), score('c', 0.5), score('b', 0.5), score('e', 0.7), score('d', 0.2)];

  it('keeps the whole pool without scores, or when too few of its agents are scored', () => {
    expect(selectTeamMembers(pool, [], 'team "t"', undefined)).toMatchObject({
      members: pool,
      selection: { optimized: false, leftOut: [] },
    });
    const few = selectTeamMembers(
      pool,
      [score('a', 1), score('b', 1), score('c', 1), score('x', 1)],
      'team "t"',
      undefined,
    );
    expect(few.members).toEqual(pool);
    expect(few.selection.reason).toContain(
      'only 3 of the 6 agents have stored scores for team "t" (4 needed; DyLAN\'s default team size 4',
    );
    // With a stored size of 3, three scored agents are enough.
    expect(selectTeamMembers(pool, [score('a', 1), score('b', 0.5), score('c', 0.25)], 'team "t"', 3).members).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('picks the top k by mean (ties by name) and keeps the file order', () => {
    const chosen = selectTeamMembers(pool, six, 'team "t"', 3);
    // Means: f 0.9, e 0.7, then b and c tie at 0.5 and b wins by name.
    expect(chosen.members).toEqual(['b', 'e', 'f']);
    expect(chosen.selection).toMatchObject({ optimized: true, leftOut: ['a', 'c', 'd'] });
    expect(chosen.selection.scores?.map((entry) => entry.agent)).toEqual(['f', 'e', 'b', 'c', 'd', 'a']);
  });

  it('takes the stored size, else 4, and says where the size came from', () => {
    const two = selectTeamMembers(pool, six, 'team "t"', 2);
    expect(two.members).toEqual(['e', 'f']);
    expect(two.selection.reason).toMatch(
      /^optimised team: the top 2 of 6 agents by mean importance stored for team "t": /,
    );
    expect(two.selection.reason).toMatch(/ \(team size 2 set by `weft team optimize --k 2`\)$/);
    const one = selectTeamMembers(pool, six, 'team "t"', 1);
    expect(one).toMatchObject({ members: ['f'], selection: { optimized: true, leftOut: ['a', 'b', 'c', 'd', 'e'] } });
    const standard = selectTeamMembers(pool, six, 'team "t"', undefined);
    expect(standard.members).toEqual(['b', 'c', 'e', 'f']);
    expect(standard.selection.reason).toContain('the top 4 of 6 agents');
    expect(standard.selection.reason).toMatch(
      /\(DyLAN's default team size 4: no `weft team optimize --k` recorded one\)$/,
    );
  });

  it('runs the whole pool when the top k holds no llm agent (tools only check answers)', () => {
    const tools = selectTeamMembers(pool, six, 'team "t"', 2, new Set(['a', 'b', 'c', 'd']));
    expect(tools).toMatchObject({ members: pool, selection: { optimized: false } });
    expect(tools.selection.reason).toContain('(f, e) include no llm agent');
    expect(selectTeamMembers(pool, six, 'team "t"', 2, new Set(['e'])).members).toEqual(['e', 'f']);
  });

  it('runs the whole pool when it has no more agents than the stored size', () => {
    const whole = selectTeamMembers(pool, six, 'team "t"', 6);
    expect(whole).toMatchObject({ members: pool, selection: { optimized: false, leftOut: [] } });
    expect(whole.selection.reason).toBe(
      'the team has 6 agent(s), no more than the optimised size 6 (team size 6 set by `weft team optimize --k 6`): the whole team runs',
    );
    // A size recorded for a larger pool than the file now holds.
    expect(selectTeamMembers(['a', 'b'], six, 'team "t"', 5).members).toEqual(['a', 'b']);
  });
});

describe('loadTeamOffers', () => {
  it('names each offer after its team, with the file made absolute and the description (or the agents) for the planner', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'bare.yaml'),
      'name: bare\nagents:\n  - name: a\n    prompt: You are a.\n  - name: b\n    prompt: You are b.\n',
    );
    const offers = await loadTeamOffers([join(EXAMPLE, 'team.yaml'), 'bare.yaml'], dir);
    expect(offers).toEqual([
      {
        name: 'apollo-panel',
        file: join(EXAMPLE, 'team.yaml'),
        description: 'Four experts who debate a question until they agree; for a number that must be checked.',
      },
      {
        name: 'bare',
        file: join(dir, 'bare.yaml'),
        description: 'a team of 2 agents (a, b) that debate until they agree',
      },
    ]);
  });

  it('fails with BAD_INPUT naming the file for a missing or invalid team file, or two teams of one name', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'bad.yaml'), 'name: bad\ncolour: red\nagents:\n  - name: a\n    prompt: p\n');
    await copyFile(join(EXAMPLE, 'team.yaml'), join(dir, 'again.yaml'));
    const failure = async (files: string[]) => {
      try {
        await loadTeamOffers(files, dir);
      } catch (error) {
        return error as WeftError;
      }
      throw new Error('expected a failure');
    };
    expect(await failure(['missing.yaml'])).toMatchObject({
      code: 'BAD_INPUT',
      location: { file: join(dir, 'missing.yaml') },
    });
    const bad = await failure(['bad.yaml']);
    expect(bad).toMatchObject({ code: 'BAD_INPUT', location: { file: join(dir, 'bad.yaml') } });
    expect(bad.issues?.[0]).toMatchObject({ line: 2, field: 'colour' });
    expect((await failure([join(EXAMPLE, 'team.yaml'), 'again.yaml'])).message).toContain('both named "apollo-panel"');
    // The same file given twice is offered once.
    expect(
      (await loadTeamOffers([join(EXAMPLE, 'team.yaml'), join(EXAMPLE, 'team.yaml')], dir)).map((offer) => offer.name),
    ).toEqual(['apollo-panel']);
  });
});
