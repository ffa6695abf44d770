/**
 * Flow's prompts: the inspector sees the failure itself, a retry's earlier attempts are bounded, and the authors'
 * scope rules can be turned off one by one (docs/algorithms.md#prompt-scope).
 */
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import { mergeUpdate } from '../../src/plan/merge-update.js';
import { candidateFromAnswer } from '../../src/plan/plan-task.js';
import { planAnswerSchema } from '../../src/plan/plan-schemas.js';
import {
  executePrompt,
  INSPECTOR_SYSTEM,
  inspectorSystem,
  MAX_EARLIER_ATTEMPTS,
  MAX_FAILED_OUTPUT_CHARS,
  PLANNER_SYSTEM,
  plannerSystem,
  updatePrompt,
} from '../../src/plan/prompts.js';
import { proposeUpdate } from '../../src/plan/update-plan.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { planTask } from '../../src/plan/plan-task.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { NO_EARLIER_ATTEMPTS, withEarlierAttempt } from '../../src/run/earlier-attempts.js';
import { testModel } from '../run/test-model.js';

const workflow = workflowFromJson({
  task: 'build a page',
  subtasks: [
    { id: 'a', objective: 'write the copy', agent: 'writer', dependsOn: [], status: 'completed', output: 'COPY' },
    { id: 'b', objective: 'write the html', agent: 'coder', dependsOn: ['a'], status: 'failed' },
    { id: 'c', objective: 'style it', agent: 'coder', dependsOn: ['b'] },
  ],
});

function between(prompt: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(prompt)?.[1];
}

describe('the update prompt', () => {
  it("shows the failed subtask's last output with the reason, and every subtask's status", () => {
    const prompt = updatePrompt(
      workflow,
      [{ id: 'b', reason: 'the nav bar is missing', output: '<html>NO NAV HERE</html>' }],
      [{ id: 'a', objective: 'write the copy', output: 'COPY' }],
      'run-1',
    );
    const failure = between(prompt, 'failed-outputs')!;
    expect(failure).toContain('<failure id="b">');
    expect(failure).toContain('<reason>the nav bar is missing</reason>');
    expect(failure).toContain('<html>NO NAV HERE</html>');
    expect(between(prompt, 'statuses')).toBe('- a: completed\n- b: failed\n- c: not started');
    // The sim model reads `<failed>` as the list of ids: it stays a plain list.
    expect(between(prompt, 'failed')).toBe('b');
  });

  it('cuts a long failed output and says how much was cut and where the whole of it is', () => {
    const long = `${'x'.repeat(MAX_FAILED_OUTPUT_CHARS)}TAIL-NOT-SHOWN`;
    const prompt = updatePrompt(workflow, [{ id: 'b', reason: 'too long', output: long }], [], 'run-1');
    expect(prompt).not.toContain('TAIL-NOT-SHOWN');
    expect(prompt).toContain('[14 more characters cut (whole output: weft show run-1 --attempts b)]');
  });

  it('says so when the failed attempt left no output', () => {
    const prompt = updatePrompt(workflow, [{ id: 'b', reason: 'PROVIDER: 500' }], []);
    expect(between(prompt, 'failed-outputs')).toContain('none: the attempt ended without a result');
  });

  it("reaches the inspector's call through proposeUpdate, with the minimal-change rules unless turned off", async () => {
    const failed = [{ id: 'b', reason: 'the nav bar is missing', output: 'FAILED-HTML-OUTPUT' }];
    const model = testModel();
    await proposeUpdate({ model, workflow, failed, sequence: 1, runId: 'r' });
    const call = model.calls.find((c) => c.tag?.purpose === 'update')!;
    expect(call.messages[0]!.content).toContain('FAILED-HTML-OUTPUT');
    expect(call.system).toBe(inspectorSystem(true));
    expect(call.system).toContain('Change only what the failures require');

    const plain = testModel();
    await proposeUpdate({ model: plain, workflow, failed, sequence: 1, minimal: false });
    expect(plain.calls[0]!.system).toBe(INSPECTOR_SYSTEM);
    expect(plain.calls[0]!.system).not.toContain('Change only what the failures require');
  });
});

describe('the agent prompt', () => {
  it('shows at most the latest earlier attempts, each output cut, with a note of those left out', () => {
    let earlier = NO_EARLIER_ATTEMPTS;
    for (let attempt = 1; attempt <= MAX_EARLIER_ATTEMPTS + 2; attempt++)
      earlier = withEarlierAttempt(earlier, {
        attempt,
        verdict: 'retry',
        output: `OUT${attempt} ${'y'.repeat(5_000)}`,
        reason: `REASON${attempt}`,
      });
    expect(earlier.shown.map((entry) => entry.attempt)).toStrictEqual([3, 4, 5]);
    expect(earlier.leftOut).toBe(2);
    const prompt = executePrompt('task', 'the objective', [], { earlier: earlier.shown, earlierLeftOut: 2 });
    const previous = between(prompt, 'previous-attempts')!;
    expect(previous).toContain('(2 earlier attempts left out)');
    expect(previous).not.toContain('REASON2');
    expect(previous).toContain('REASON5');
    expect(previous).toContain('more characters cut]');
    expect(previous.length).toBeLessThan(3 * 2_200);
    expect(between(prompt, 'objective')).toBe('the objective');
  });

  it('is unchanged for a first attempt with nothing else to tell', () => {
    expect(executePrompt('T', 'O', [])).toBe(
      '<task>\nT\n</task>\n\n<objective>\nO\n</objective>\n\n<inputs>none: this subtask has no prerequisites</inputs>\n\nCarry out the objective.',
    );
  });
});

describe('the planner prompt and the output format', () => {
  it('forbids test-, debug- and deploy-only subtasks and asks for an output format, unless turned off', () => {
    expect(plannerSystem()).toContain('Do not plan subtasks that only');
    expect(plannerSystem()).toContain('"outputFormat"');
    expect(plannerSystem(false)).toBe(PLANNER_SYSTEM);
    expect(PLANNER_SYSTEM).not.toContain('outputFormat');
  });

  it('reaches the planner through planTask and runTask, and each turns it off', async () => {
    const planner = () =>
      scriptedModel(() => JSON.stringify({ subtasks: [{ id: 'a', objective: 'o', agent: 'x', dependsOn: [] }] }));
    const scoped = planner();
    await planTask({ task: 't', model: scoped, candidates: 1 });
    expect(scoped.calls[0]!.system).toBe(plannerSystem(true));
    const plain = planner();
    await planTask({ task: 't', model: plain, candidates: 1, scope: false });
    expect(plain.calls[0]!.system).toBe(PLANNER_SYSTEM);

    const home = mkdtempSync(join(tmpdir(), 'weft-scope-'));
    const store = await openRunStore({ home });
    const run = scriptedModel((call) =>
      call.tag?.purpose === 'plan'
        ? JSON.stringify({ subtasks: [{ id: 'a', objective: 'o', agent: 'x', dependsOn: [] }] })
        : call.tag?.purpose === 'verify'
          ? '{"verdict":"accept","reason":""}'
          : 'done',
    );
    await runTask({ task: 't', model: run, store, home, run: { candidates: 1 }, prompts: { plannerScope: false } });
    await store.close();
    expect(run.calls.find((call) => call.tag?.purpose === 'plan')?.system).toBe(PLANNER_SYSTEM);
  });

  it("takes a planner's outputFormat (or the authors' output_format) onto the subtask, and leaves it optional", () => {
    const answer = planAnswerSchema.parse({
      subtasks: [
        { id: 'a', objective: 'o', agent: 'x', dependsOn: [], output_format: 'Python code' },
        { id: 'b', objective: 'p', agent: 'x', dependsOn: ['a'], outputFormat: 'Markdown' },
        { id: 'c', objective: 'q', agent: 'x', dependsOn: [] },
        { id: 'd', objective: 'r', agent: 'x', dependsOn: [], outputFormat: '  ' },
      ],
    });
    const planned = candidateFromAnswer(0, 'task', answer).workflow!;
    expect(planned.subtasks.map((s) => s.outputFormat)).toStrictEqual([
      'Python code',
      'Markdown',
      undefined,
      undefined,
    ]);
  });

  it("keeps a subtask's output format through a revision that leaves it out, and takes a new one", () => {
    const planned = workflowFromJson({
      task: 't',
      subtasks: [
        { id: 'a', objective: 'o', agent: 'x', dependsOn: [], outputFormat: 'JSON' },
        { id: 'b', objective: 'p', agent: 'x', dependsOn: [], outputFormat: 'HTML' },
      ],
    });
    const merged = mergeUpdate(planned, {
      subtasks: [
        { id: 'a', objective: 'o', agent: 'x', dependsOn: [] },
        { id: 'b', objective: 'p', agent: 'x', dependsOn: [], outputFormat: 'Markdown' },
      ],
    });
    expect(merged.ok && merged.workflow.subtasks.map((s) => s.outputFormat)).toStrictEqual(['JSON', 'Markdown']);
  });
});
