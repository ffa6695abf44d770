/**
 * The verifier sees the evidence: a scripted run whose refund call fails (HTTP 409) while the agent's output claims
 * the refund was issued is rejected by a scripted verifier that answers `replan` only when its prompt shows that
 * failed call. The prompt holds the call, its arguments (the card number redacted) and the error; the summary and
 * the `--json` document count the failed call; a resumed run, whose calls are replayed from the log, shows the
 * verifier the same evidence.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../../src/cli/run/run-command.js';
import type { Workflow } from '../../src/graph/workflow.js';
import type { ChatCall, ChatModel } from '../../src/llm/chat-model.js';
import { createModel } from '../../src/llm/resolve-model.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { summarizeRun } from '../../src/run/run-summary.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { EventRecord } from '../../src/store/run-store.js';
import { CARD, PLAN, REJECTION, recordedScriptedModel, refundTool, verifierPrompts } from './refund-fixtures.js';
import { runEvents } from '../../src/run/run-events.js';

async function refundRun() {
  const dir = mkdtempSync(join(tmpdir(), 'weft-evidence-'));
  const model = await recordedScriptedModel(dir);
  const tool = refundTool();
  const store = await openRunStore({ home: dir });
  const result = await runTask({
    task: PLAN.task,
    plan: PLAN,
    model,
    store,
    home: dir,
    runId: 'ref',
    tools: { available: [tool] },
    run: { strategy: 'none' },
  });
  const events = await runEvents(store, 'ref');
  await store.close();
  return { dir, model, tool, result, events };
}

describe('the verifier sees the attempt tool calls', () => {
  it('rejects an output claiming a refund whose call failed, having been shown the call, its arguments and the error', async () => {
    const { model, tool, result, events } = await refundRun();
    expect(tool.made).toBe(1);
    const [prompt, ...others] = verifierPrompts(model.calls);
    expect(others).toEqual([]);
    expect(prompt).toContain('<output>\nRefund RF-0001 of $69.00 was issued to the card.\n</output>');
    expect(prompt).toContain('The agent made 1 tool call in this attempt; 1 failed.');
    expect(prompt).toContain('<call n="1" tool="issue_refund" status="failed" code="TOOL">');
    expect(prompt).toContain('<arguments>{"return_id":"R-0001","card":"[redacted]"}</arguments>');
    expect(prompt).toContain(
      '<error>issue_refund: HTTP 409: {"error":"return R-0001 is already refunded to card [redacted]"}</error>',
    );
    expect(prompt).not.toContain(CARD);
    const system = model.calls.find((call) => call.tag?.purpose === 'verify')?.system ?? '';
    expect(system.replace(/\s+/g, ' ')).toContain('Never accept an output that claims what the calls do not show');

    // The rejection: the verdict, the subtask failed with its reason, the run failed.
    expect(events.filter((e) => e.type === 'task-verify')).toMatchObject([
      { taskId: 'refund', verdict: 'replan', reason: REJECTION },
    ]);
    expect(result.status).toBe('failed');
    expect(result.tasks[0]).toMatchObject({ id: 'refund', status: 'failed', reason: expect.stringContaining('409') });

    // Counted: the summary and the --json document, at the top and per task.
    expect(result).toMatchObject({ toolCalls: 1, toolCallsFailed: 1 });
    const summary = summarizeRun('ref', events);
    expect(summary).toMatchObject({ toolCalls: 1, toolCallsFailed: 1 });
    const json = runJson(summary);
    expect(json.toolCallsFailed).toBe(1);
    expect(json.tasks[0]).toMatchObject({ id: 'refund', toolCalls: 1, toolCallsFailed: 1 });
  });

  it('shows a resumed run the same evidence, replayed from the log without calling the tool again', async () => {
    const reference = await refundRun();
    const [expected] = verifierPrompts(reference.model.calls);
    // The process died after the agent's answer, before its verification was recorded.
    const cut = reference.events.findIndex((e) => e.type === 'model-call' && e.purpose === 'verify');
    expect(cut).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'weft-evidence-resume-'));
    const store = await openRunStore({ home: dir });
    await store.createRun({
      runId: 'ref',
      task: PLAN.task,
      model: reference.model.id,
      options: (reference.events[0] as Extract<WeftEvent, { type: 'run-start' }>).options,
    });
    await store.appendEvents('ref', reference.events.slice(0, cut) as unknown as EventRecord[]);
    const chosen = reference.events.find((e) => e.type === 'plan-chosen') as Extract<
      WeftEvent,
      { type: 'plan-chosen' }
    >;
    await store.savePlanVersion({ runId: 'ref', version: 1, workflow: chosen.workflow, cause: 'given plan' });
    const model = await recordedScriptedModel(dir);
    const tool = refundTool();
    const result = await resumeRun({ runId: 'ref', model, store, home: dir, tools: { available: [tool] } });
    await store.close();
    expect(tool.made).toBe(0);
    // Only the verification was asked again; the agent's calls came from the log.
    expect(model.calls.map((call) => call.tag?.purpose)).toEqual(['verify']);
    expect(verifierPrompts(model.calls)).toEqual([expected]);
    expect(result.status).toBe('failed');
    expect(result).toMatchObject({ toolCalls: 1, toolCallsFailed: 1 });
  });

  it('tells the verifier of a role with tools that it made none, and leaves the prompt of a role without tools alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-evidence-none-'));
    const file = join(dir, 'replies.json');
    writeFileSync(
      file,
      JSON.stringify({
        replies: [
          { when: "You are Weft's verifier", text: '{"verdict":"accept","reason":"ok"}', repeat: true },
          { text: 'Refund RF-0001 was issued.', repeat: true },
        ],
      }),
    );
    const scripted = await createModel(`scripted:${file}`);
    const calls: ChatCall[] = [];
    const model: ChatModel = {
      ...scripted,
      generate: (call, signal) => (calls.push(call), scripted.generate(call, signal)),
    };
    const plan: Workflow = {
      ...PLAN,
      roles: [...PLAN.roles, { name: 'writer', prompt: 'You write.', kind: 'llm' }],
      subtasks: [...PLAN.subtasks, { ...PLAN.subtasks[0]!, id: 'note', objective: 'Write a note.', agent: 'writer' }],
    };
    const store = await openRunStore({ home: dir });
    const result = await runTask({
      task: plan.task,
      plan,
      model,
      store,
      home: dir,
      tools: { available: [refundTool()] },
    });
    await store.close();
    expect(result.status).toBe('completed');
    const prompt = (key: string) =>
      calls.find((call) => call.tag?.purpose === 'verify' && call.tag.key === key)?.messages[0]?.content ?? '';
    expect(prompt('refund')).toContain('<tool-calls>\nnone: the agent made no tool call in this attempt');
    expect(prompt('note')).not.toContain('<tool-calls>');
    expect(prompt('note')).toMatch(/Does the output meet the objective\? Answer with the JSON object only\.$/);
  });
});
