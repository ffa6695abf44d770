/**
 * `weft mcp` over a real stdio child process, driven by the SDK's own client as Claude Desktop or Cursor would:
 * list the tools, execute a workflow, start a sim run and poll it to completion, read its resource, and errors as
 * tool errors (the server keeps serving after them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

const DIR = 'test/fixtures/workflows';
let home: string;
let client: Client;
let stderr = '';
/** What the client could not parse or handle: stdout must carry nothing but the protocol. */
const clientErrors: Error[] = [];

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text: string }[];
  return content.map((block) => block.text).join('');
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'weft-mcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--home', home, '--model', 'sim:seed=4,tasks=3'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'weft-test', version: '1.0.0' });
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
}, 30_000);

afterAll(async () => {
  await client?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('weft mcp', () => {
  it('lists its tools with input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'weft_cancel',
      'weft_eval',
      'weft_exec',
      'weft_plan',
      'weft_run',
      'weft_runs',
      'weft_show',
      'weft_status',
    ]);
    const exec = tools.find((tool) => tool.name === 'weft_exec')!;
    expect(exec.inputSchema.required).toEqual(['workflow']);
    // weft run's options, as JSON Schema a client can check arguments against.
    const run = tools.find((tool) => tool.name === 'weft_run')!;
    expect(run.inputSchema.properties).toMatchObject({
      maxCalls: { type: 'integer', minimum: 1 },
      strategy: { enum: expect.arrayContaining(['on-failure', 'none']) },
    });
  });

  it('executes a workflow with its tools and no model', async () => {
    const result = await client.callTool({
      name: 'weft_exec',
      arguments: { workflow: `${DIR}/sum-to-n.workflow.json`, tools: `${DIR}/tools.yaml`, input: { n: 4 } },
    });
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual({ output: 10, steps: 16, toolCalls: 4, llmCalls: 0 });
  });

  it('plans a task', async () => {
    const result = await client.callTool({ name: 'weft_plan', arguments: { task: 'Write a short report on tea' } });
    expect(result.isError, text(result)).toBeFalsy();
    const plan = JSON.parse(text(result)) as { plan: { subtasks: unknown[] } };
    expect(plan.plan.subtasks.length).toBeGreaterThan(0);
  });

  it('starts a run, reports its status until it ends, and serves its document as a resource', async () => {
    const started = await client.callTool({ name: 'weft_run', arguments: { task: 'Write a short report on tea' } });
    expect(started.isError, text(started)).toBeFalsy();
    const { runId, status } = JSON.parse(text(started)) as { runId: string; status: string };
    expect(status).toBe('running');
    let state: { status: string; subtasks: number; completed: number } = {
      status: 'running',
      subtasks: 0,
      completed: 0,
    };
    for (let poll = 0; poll < 200 && state.status === 'running'; poll++) {
      const result = await client.callTool({ name: 'weft_status', arguments: { runId } });
      expect(result.isError, text(result)).toBeFalsy();
      state = JSON.parse(text(result));
      if (state.status === 'running') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(state.status, stderr).toBe('completed');
    expect(state.completed).toBe(state.subtasks);
    expect(state.subtasks).toBeGreaterThan(0);

    const resource = await client.readResource({ uri: `weft://runs/${runId}` });
    const document = JSON.parse((resource.contents[0] as { text: string }).text) as {
      runId: string;
      status: string;
      tasks: { status: string }[];
    };
    expect(document.runId).toBe(runId);
    expect(document.status).toBe('completed');
    expect(document.tasks).toHaveLength(state.subtasks);

    const listed = await client.listResources();
    expect(listed.resources.map((entry) => entry.uri)).toContain(`weft://runs/${runId}`);

    const shown = await client.callTool({ name: 'weft_show', arguments: { runId } });
    expect(JSON.parse(text(shown))).toEqual(document);
  });

  it('with wait: true, answers when the run ends and sends progress meanwhile', async () => {
    const progress: { progress: number; total?: number }[] = [];
    const result = await client.callTool(
      { name: 'weft_run', arguments: { task: 'Write a short report on tea', wait: true } },
      undefined,
      { onprogress: (event) => progress.push(event) },
    );
    expect(result.isError, text(result)).toBeFalsy();
    expect(JSON.parse(text(result))).toMatchObject({ status: 'completed' });
    expect(progress.length).toBeGreaterThan(0);
    const last = progress.at(-1)!;
    expect(last.total).toBeGreaterThan(0);
    expect(last.progress).toBe(last.total);
    const values = progress.map((event) => event.progress);
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
  });

  it('answers an unknown run, a bad workflow path and bad arguments with tool errors, and keeps serving', async () => {
    const unknown = await client.callTool({ name: 'weft_status', arguments: { runId: 'no-such-run' } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('No run "no-such-run"');

    const missing = await client.callTool({ name: 'weft_exec', arguments: { workflow: `${DIR}/nope.workflow.json` } });
    expect(missing.isError).toBe(true);

    const badArgs = await client.callTool({ name: 'weft_exec', arguments: { workflow: 42 } });
    expect(badArgs.isError).toBe(true);

    // Deeply nested junk as the input: an answer (an error or not), and the server still serves.
    let deep: unknown = 'bottom';
    for (let level = 0; level < 1000; level++) deep = { n: deep };
    const hostile = await client.callTool({
      name: 'weft_exec',
      arguments: { workflow: `${DIR}/sum-to-n.workflow.json`, tools: `${DIR}/tools.yaml`, input: deep as object },
    });
    expect(hostile.isError).toBe(true);
    expect(text(hostile)).toContain('BAD_INPUT');

    await expect(client.readResource({ uri: 'weft://runs/no-such-run' })).rejects.toThrow(/No run "no-such-run"/);

    const again = await client.listTools();
    expect(again.tools).toHaveLength(8);
    expect(clientErrors).toEqual([]);
  });
});
