/**
 * weft_run with `weft run`'s options over the protocol: strategy, concurrency, budgets, a deadline, attempts,
 * verification, a tools file and a plan file reach the run (its record says so), a budget stops a run, and bad
 * values are tool errors naming the argument, answered before any run exists.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callError, callJson, type McpHarness, startMcp } from './mcp-harness.js';

let mcp: McpHarness;
beforeAll(async () => {
  mcp = await startMcp();
});
afterAll(async () => {
  await mcp.close();
});

interface Started {
  runId: string;
  status: string;
}

describe('weft_plan options', () => {
  it("offers a tools file's tools to the planner: a plan naming one is valid only with it", async () => {
    const script = join(mcp.home, 'planner.json');
    const answer = {
      roles: [{ name: 'adder', prompt: 'You add numbers.', tools: ['add'] }],
      subtasks: [{ id: 't1', objective: 'add 1 and 2', agent: 'adder', dependsOn: [] }],
    };
    writeFileSync(script, JSON.stringify({ replies: [{ text: JSON.stringify(answer), repeat: true }] }));
    const scripted = await startMcp({ model: `scripted:${script}` });
    try {
      const planned = await callJson<{ plan: { roles: { name: string; tools?: string[] }[] } }>(
        scripted.client,
        'weft_plan',
        { task: 'Add 1 and 2', tools: 'test/fixtures/workflows/tools.yaml' },
      );
      expect(planned.plan.roles).toContainEqual(expect.objectContaining({ name: 'adder', tools: ['add'] }));
      // Without the tools file, "add" is no tool the planner was offered: every answer is refused.
      expect(await callError(scripted.client, 'weft_plan', { task: 'Add 1 and 2' })).toContain('unknown tool "add"');
      expect(
        await callError(scripted.client, 'weft_plan', { task: 'Add', tools: join(mcp.home, 'no-tools.yaml') }),
      ).toMatch(/BAD_INPUT: .*no-tools\.yaml/);
      expect(
        await callError(scripted.client, 'weft_plan', { task: 'Add', teams: [join(mcp.home, 'no-team.yaml')] }),
      ).toMatch(/no-team\.yaml/);
    } finally {
      await scripted.close();
    }
  });
});

describe('weft_run options', () => {
  it("records the options it was given, as `weft run`'s flags would", async () => {
    const { runId, status } = await callJson<Started>(mcp.client, 'weft_run', {
      task: 'Write a short report on tea',
      wait: true,
      strategy: 'after-completion',
      concurrency: 2,
      candidates: 2,
      maxAttempts: 2,
      maxCalls: 1000,
      maxTokens: 1_000_000,
      maxCostUsd: 5,
      timeoutSeconds: 60,
      maxToolCalls: 0,
      verify: false,
      tools: 'test/fixtures/workflows/tools.yaml',
    });
    expect(status).toBe('completed');
    const run = await mcp.store.getRun(runId);
    expect(run?.options).toMatchObject({
      strategy: 'after-completion',
      concurrency: 2,
      candidates: 2,
      maxAttempts: 2,
      verify: false,
      budget: { maxCalls: 1000, maxTokens: 1_000_000, maxCostUsd: 5, maxWallMs: 60_000, maxToolCalls: 0 },
      toolsFile: resolve('test/fixtures/workflows/tools.yaml'),
    });
  });

  it('stops a run at its budget', async () => {
    const { runId, status } = await callJson<Started>(mcp.client, 'weft_run', {
      task: 'Write a short report on tea',
      wait: true,
      maxCalls: 1,
    });
    expect(status).not.toBe('completed');
    const shown = await callJson<{ calls: number }>(mcp.client, 'weft_show', { runId });
    expect(shown.calls).toBeLessThanOrEqual(1);
  });

  it("runs a plan file (weft_plan's plan), whose task it carries", async () => {
    const { plan } = await callJson<{ plan: { task: string } }>(mcp.client, 'weft_plan', { task: 'Brew green tea' });
    const file = join(mcp.home, 'plan.json');
    writeFileSync(file, JSON.stringify(plan));
    const { runId, status } = await callJson<Started>(mcp.client, 'weft_run', { plan: file, wait: true });
    expect(status).toBe('completed');
    expect((await mcp.store.getRun(runId))?.task).toBe(plan.task);
    expect(await callError(mcp.client, 'weft_run', { plan: file, task: 'tea' })).toContain(
      'plan: give a task or a plan, not both',
    );
    expect(await callError(mcp.client, 'weft_run', { plan: file, teams: ['team.yaml'] })).toContain(
      'teams: a plan skips planning',
    );
  });

  it('answers bad options with tool errors naming them, and starts no run', async () => {
    const before = (await mcp.store.listRuns()).length;
    const { client } = mcp;
    const bad = async (args: Record<string, unknown>) => callError(client, 'weft_run', { task: 'tea', ...args });
    expect(await bad({ concurrency: 0 })).toMatch(/concurrency/);
    expect(await bad({ concurrency: 1.5 })).toMatch(/concurrency/);
    expect(await bad({ strategy: 'bogus' })).toMatch(/strategy/);
    expect(await bad({ maxCostUsd: -1 })).toMatch(/maxCostUsd/);
    expect(await bad({ timeoutSeconds: 0 })).toMatch(/timeoutSeconds/);
    expect(await bad({ maxCalls: '10' })).toMatch(/maxCalls/);
    expect(await bad({ tools: join(mcp.home, 'no-tools.yaml') })).toMatch(/BAD_INPUT: .*no-tools\.yaml/);
    expect(await callError(client, 'weft_run', { plan: join(mcp.home, 'no-plan.json') })).toMatch(
      /BAD_INPUT: .*no-plan\.json/,
    );
    expect(await bad({ teams: [join(mcp.home, 'no-team.yaml')] })).toMatch(/no-team\.yaml/);
    expect(await callError(client, 'weft_run', {})).toContain('task: give a task (in words) or a plan file');
    // Found by the run itself before it records anything: a role naming a tool no tools file gives.
    const plan = join(mcp.home, 'tool-plan.json');
    writeFileSync(
      plan,
      JSON.stringify({
        task: 'Add 1 and 2',
        roles: [{ name: 'adder', prompt: 'You add.', tools: ['add'] }],
        subtasks: [{ id: 't1', objective: 'add 1 and 2', agent: 'adder' }],
      }),
    );
    expect(await callError(client, 'weft_run', { plan })).toMatch(/"add"/);
    const withTools = await callJson<Started>(client, 'weft_run', {
      plan,
      tools: 'test/fixtures/workflows/tools.yaml',
      wait: true,
    });
    expect(withTools.status).toBe('completed');
    expect((await mcp.store.listRuns()).length).toBe(before + 1);
  });
});
