/**
 * `weft mcp` without a model: it starts, lists its tools, lists and shows runs; weft_plan and weft_run answer an
 * error that says how to give a model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadContext } from '../../src/cli/context.js';
import { modelOrMissing } from '../../src/cli/ops/mcp-command.js';
import { cli, tempHome } from '../cli/cli-harness.js';
import { callError, callJson, type McpHarness, startMcp } from './mcp-harness.js';

const NO_MODEL_ENV = ['WEFT_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'OLLAMA_HOST'];

let harness: McpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('weft mcp without a model', () => {
  it('modelOrMissing: nothing configured gives a stand-in that refuses, and the reason names --model', async () => {
    const saved = Object.fromEntries(NO_MODEL_ENV.map((name) => [name, process.env[name]]));
    for (const name of NO_MODEL_ENV) delete process.env[name];
    // Nobody listens on port 9: the Ollama probe finds no server at once.
    process.env['OLLAMA_HOST'] = 'http://127.0.0.1:9';
    try {
      const context = await loadContext({ home: tempHome() });
      const { model, modelMissing } = await modelOrMissing({}, context);
      expect(modelMissing).toMatch(/started without a model; restart it with --model SPEC/);
      await expect(model.model.generate({ messages: [] } as never)).rejects.toMatchObject({ code: 'MODEL_CONFIG' });
      // A model that was asked for and is wrong is still the user's error at start.
      await expect(modelOrMissing({ model: 'nope:x' }, context)).rejects.toThrow(/--model/);
    } finally {
      for (const name of NO_MODEL_ENV)
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    }
  });

  it('tools list, weft_runs and weft_show work; weft_plan and weft_run answer how to give a model', async () => {
    const missing = 'weft mcp was started without a model; restart it with --model SPEC';
    harness = await startMcp({ modelMissing: missing });
    const run = await cli(['run', 'Name a boat', '--model', 'sim:seed=1,tasks=2', '--home', harness.home, '--json']);
    const runId = (JSON.parse(run.stdout) as { runId: string }).runId;
    const tools = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['weft_plan', 'weft_run', 'weft_runs', 'weft_show']));
    const listed = await callJson<{ runs: { runId: string }[] }>(harness.client, 'weft_runs', {});
    expect(listed.runs.map((entry) => entry.runId)).toEqual([runId]);
    const shown = await callJson<{ runId: string; status: string }>(harness.client, 'weft_show', { runId });
    expect(shown).toMatchObject({ runId, status: 'completed' });
    expect(await callError(harness.client, 'weft_plan', { task: 'Name a boat' })).toContain(missing);
    expect(await callError(harness.client, 'weft_run', { task: 'Name a boat' })).toContain(missing);
    expect((await harness.store.listRuns()).length).toBe(1);
  });
});
