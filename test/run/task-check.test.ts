/**
 * Task success judged apart from the run's verifier (docs/algorithms.md#fault-injection): the user's check command
 * on the artifacts folder (exit status, deadline, bounded output) and a judge model; recorded as `task-check` events,
 * in the run summary and in report.md.
 */
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { runCheckCommand } from '../../src/run/check-command.js';
import { judgeTaskPrompt, readJudgeVerdict } from '../../src/run/judge-task.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask } from '../../src/run/run-task.js';
import { tempStores } from './temp-store.js';
import { diamond } from './execution-harness.js';
import { deferred, testModel } from './test-model.js';
import { runEvents } from '../../src/run/run-events.js';

const setup = tempStores('check');

describe('runCheckCommand', () => {
  const cwd = tmpdir();

  it('passes on exit status 0 and fails on any other, keeping the output', async () => {
    const ok = await runCheckCommand({ command: 'echo fine', cwd, timeoutMs: 30_000 });
    expect(ok).toMatchObject({ passed: true, exitCode: 0, timedOut: false, droppedChars: 0 });
    expect(ok.output.trim()).toBe('fine');
    const bad = await runCheckCommand({ command: 'echo broken >&2; exit 3', cwd, timeoutMs: 30_000 });
    expect(bad).toMatchObject({ passed: false, exitCode: 3, timedOut: false });
    expect(bad.output.trim()).toBe('broken');
  });

  it('runs in the given folder with the given environment', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'weft-check-cwd-'));
    const result = await runCheckCommand({
      command: 'node -e "console.log(process.cwd(), process.env.WEFT_ARTIFACTS)"',
      cwd: folder,
      timeoutMs: 30_000,
      env: { WEFT_ARTIFACTS: 'here' },
    });
    expect(result.output.trim()).toMatch(/weft-check-cwd-\S+ here$/);
  });

  it('keeps only the tail of a long output and says how much it dropped', async () => {
    const result = await runCheckCommand({
      command: "node -e \"process.stdout.write('x'.repeat(10000) + 'END')\"",
      cwd,
      timeoutMs: 30_000,
      maxOutputChars: 100,
    });
    expect(result.passed).toBe(true);
    expect(result.output).toHaveLength(100);
    expect(result.output.endsWith('END')).toBe(true);
    expect(result.droppedChars).toBe(10003 - 100);
  });

  it('stops a command that outlives its deadline, with what it started, and fails the check', async () => {
    // The shell starts a child that would run for a minute; the process group goes at the deadline.
    const result = await runCheckCommand({
      command: 'echo started; node -e "setTimeout(() => {}, 60000)"; echo never',
      cwd,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ passed: false, exitCode: null, timedOut: true });
    expect(result.output).toContain('started');
    expect(result.output).not.toContain('never');
    expect(result.output).toMatch(/deadline of 300 ms/);
  });

  it('stops on cancel', async () => {
    const controller = new AbortController();
    const pending = runCheckCommand({
      command: 'node -e "setTimeout(() => {}, 60000)"',
      cwd,
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toMatchObject({ passed: false, timedOut: false, exitCode: null });
  });
});

describe('the judge model', () => {
  it('is shown the task, the result and the artifacts', () => {
    const prompt = judgeTaskPrompt({ task: 'Build a game', result: 'the code', artifacts: ['game.py'] });
    expect(prompt).toContain('<task>\nBuild a game\n</task>');
    expect(prompt).toContain('<result>\nthe code\n</result>');
    expect(prompt).toContain('<artifacts>\ngame.py\n</artifacts>');
  });

  it('reads success or failure, and takes an unreadable reply as a failed check', () => {
    expect(readJudgeVerdict('{"success": true, "reason": "complete"}')).toEqual({ passed: true, reason: 'complete' });
    expect(readJudgeVerdict('```json\n{"success": false, "reason": "no board"}\n```')).toEqual({
      passed: false,
      reason: 'no board',
    });
    const unreadable = readJudgeVerdict('Looks good to me');
    expect(unreadable.passed).toBe(false);
    expect(unreadable.reason).toMatch(/no "success"/);
    expect(readJudgeVerdict('{"success": "yes"}').passed).toBe(false);
  });
});

describe('a run with task checks', () => {
  it('records the command and the judge as task-check events, in the summary and in report.md', async () => {
    const { home, store } = await setup();
    const judged: string[] = [];
    const judge: ChatModel = {
      id: 'scripted:judge',
      kind: 'scripted',
      async generate(call) {
        judged.push(call.messages[0]!.content);
        return {
          text: '{"success": false, "reason": "the page has no footer"}',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'judge',
        };
      },
    };
    const result = await runTask({
      task: 'diamond',
      model: testModel({ execute: (key) => (key === 'd' ? 'the final page' : `out ${key}`) }),
      store,
      home,
      plan: workflowFromJson(diamond()),
      taskCheck: { command: 'cat "$WEFT_RUN_DIR/outputs/d.md"', judgeModel: 'scripted:judge', timeoutMs: 30_000 },
      run: { candidates: 1 },
      roles: {
        createModel: async (spec) => {
          expect(spec).toBe('scripted:judge');
          return judge;
        },
      },
    });
    expect(result.status).toBe('completed');
    expect(result.taskCheck?.passed).toBe(false);
    expect(result.taskCheck?.checks).toEqual([
      {
        method: 'command',
        by: 'cat "$WEFT_RUN_DIR/outputs/d.md"',
        passed: true,
        detail: 'the final page',
        exitCode: 0,
        timedOut: false,
      },
      { method: 'judge', by: 'scripted:judge', passed: false, detail: 'the page has no footer' },
    ]);
    expect(judged[0]).toContain('<result>\nthe final page\n</result>');
    const events = await runEvents(store, result.runId);
    const checks = events.filter((event) => event.type === 'task-check');
    expect(checks).toHaveLength(2);
    // Recorded before the run ends, so a reader of the log sees them with the run.
    expect(events.findIndex((event) => event.type === 'run-end')).toBeGreaterThan(
      events.findIndex((event) => event.type === 'task-check'),
    );
    const report = await readFile(join(result.runDir, 'report.md'), 'utf8');
    expect(report).toContain('## Task check');
    expect(report).toContain('Task success: **no**');
    expect(report).toContain('- judge scripted:judge: failed');
  });

  it('checks nothing when cancelled, and a resume runs the recorded check at its end', async () => {
    const { home, store } = await setup();
    const controller = new AbortController();
    const hang = deferred<string>();
    const cancelled = await runTask({
      task: 'diamond',
      model: testModel({
        execute: (key) => (key === 'd' ? hang.promise : `out ${key}`),
      }),
      store,
      home,
      plan: workflowFromJson(diamond()),
      signal: controller.signal,
      taskCheck: { command: 'exit 0', timeoutMs: 30_000 },
      onEvent: (event) => {
        if (event.type === 'task-start' && event.taskId === 'd') queueMicrotask(() => controller.abort());
      },
      run: { candidates: 1 },
    });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.taskCheck).toBeUndefined();
    const resumed = await resumeRun({ runId: cancelled.runId, model: testModel(), store, home });
    expect(resumed.status).toBe('completed');
    expect(resumed.taskCheck).toEqual({
      passed: true,
      checks: [{ method: 'command', by: 'exit 0', passed: true, detail: '', exitCode: 0, timedOut: false }],
    });
  });

  it("counts the judge's call in the run's calls, and refuses it once the run's budget is spent", async () => {
    const judge = (): ChatModel => ({
      id: 'scripted:judge',
      kind: 'scripted',
      generate: async () => ({
        text: '{"success": true}',
        usage: { inputTokens: 10, outputTokens: 5 },
        model: 'judge',
      }),
    });
    const run = async (budget?: { maxCalls: number }) => {
      const { home, store } = await setup();
      return runTask({
        task: 'diamond',
        model: testModel(),
        store,
        home,
        plan: workflowFromJson(diamond()),
        run: { candidates: 1 },
        roles: { createModel: async () => judge() },
        ...(budget ? { budget } : {}),
        taskCheck: { judgeModel: 'scripted:judge', timeoutMs: 30_000 },
      });
    };
    const unbounded = await run();
    expect(unbounded.taskCheck?.passed).toBe(true);
    const runCalls = unbounded.calls - 1;
    expect(runCalls).toBeGreaterThan(0);
    // With exactly the run's own calls to spend, the judge's is refused: a failed check that says why.
    const bounded = await run({ maxCalls: runCalls });
    expect(bounded.status).toBe('completed');
    expect(bounded.calls).toBe(runCalls);
    expect(bounded.taskCheck?.passed).toBe(false);
    expect(bounded.taskCheck?.checks[0]?.detail).toContain(`Budget exhausted: call budget of ${runCalls} reached`);
  });

  it('records the judge spec without the password of its URL, and calls the judge with the spec as given', async () => {
    const { home, store } = await setup();
    const spec = 'openai-compatible:http://user:SECRET@127.0.0.1:9/v1#judge';
    const asked: string[] = [];
    const result = await runTask({
      task: 'diamond',
      model: testModel(),
      store,
      home,
      plan: workflowFromJson(diamond()),
      taskCheck: { judgeModel: spec, timeoutMs: 30_000 },
      run: { candidates: 1 },
      roles: {
        createModel: async (given) => {
          asked.push(given);
          return {
            id: given,
            kind: 'scripted',
            generate: async () => ({
              text: '{"success": true}',
              usage: { inputTokens: 1, outputTokens: 1 },
              model: 'j',
            }),
          };
        },
      },
    });
    expect(asked).toEqual([spec]);
    expect(result.taskCheck?.passed).toBe(true);
    const events = await store.events(result.runId);
    expect(JSON.stringify(events)).not.toContain('SECRET');
    expect(JSON.stringify(await store.getRun(result.runId))).not.toContain('SECRET');
  });

  it('refuses a check with neither a command nor a judge, before any run exists', async () => {
    const { home, store } = await setup();
    await expect(
      runTask({ task: 't', model: testModel(), store, home, plan: workflowFromJson(diamond()), taskCheck: {} }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(await store.listRuns()).toEqual([]);
  });
});
