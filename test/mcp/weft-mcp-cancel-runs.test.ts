/**
 * weft_cancel, weft_runs and run resource subscriptions over the protocol: a client cancels a run this server
 * started (not one of another process, nor an unknown or ended one), lists recent runs, and is told when a run it
 * subscribed to starts and ends.
 */
import { hostname } from 'node:os';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { callError, callJson, type McpHarness, startMcp } from './mcp-harness.js';

let mcp: McpHarness | undefined;
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

interface Started {
  runId: string;
  status: string;
}

/** A run of many slow subtasks: still going when the test acts on it. */
const SLOW = 'sim:seed=2,tasks=8,latency=fixed(300)';

describe('weft_cancel', () => {
  it('cancels a run this server started, keeping it recorded as cancelled', async () => {
    mcp = await startMcp({ model: SLOW });
    const { runId } = await callJson<Started>(mcp.client, 'weft_run', { task: 'Write a long report on tea' });
    const cancelled = await callJson<Started>(mcp.client, 'weft_cancel', { runId });
    expect(cancelled).toEqual({ runId, status: 'cancelled' });
    const status = await callJson<{ status: string; completed: number; subtasks: number }>(mcp.client, 'weft_status', {
      runId,
    });
    expect(status.status).toBe('cancelled');
    expect((await mcp.store.getRun(runId))?.status).toBe('cancelled');
    // Once ended, there is nothing to cancel: said so, not pretended.
    expect(await callError(mcp.client, 'weft_cancel', { runId })).toContain(
      `runId: run "${runId}" has ended (cancelled): nothing to cancel`,
    );
  });

  it("refuses an unknown run, another process's run and an interrupted one", async () => {
    mcp = await startMcp();
    expect(await callError(mcp.client, 'weft_cancel', { runId: 'no-such-run' })).toContain('No run "no-such-run"');
    // The parent process is alive on this host: its run is going, and not this server's to stop.
    await mcp.store.createRun({
      runId: 'elsewhere',
      task: 'tea',
      model: 'sim:',
      options: {},
      owner: { pid: process.ppid, host: hostname() },
    });
    expect(await callError(mcp.client, 'weft_cancel', { runId: 'elsewhere' })).toContain(
      `run "elsewhere" is driven by another process (process ${process.ppid} on ${hostname()}), not this server`,
    );
    await mcp.store.createRun({
      runId: 'gone',
      task: 'tea',
      model: 'sim:',
      options: {},
      owner: { pid: 2 ** 31 - 2, host: hostname() },
    });
    expect(await callError(mcp.client, 'weft_cancel', { runId: 'gone' })).toContain(
      'run "gone" was interrupted (its process has gone): nothing to cancel',
    );
    expect((await mcp.store.getRun('elsewhere'))?.status).toBe('running');
  });
});

describe('weft_runs', () => {
  it('lists runs newest first with their tasks clipped, filtered by status and bounded', async () => {
    mcp = await startMcp();
    const long = `${'tea '.repeat(100)}\nsecond line`;
    for (const [index, task] of ['first task', 'second task', long].entries()) {
      await mcp.store.createRun({ runId: `r${index}`, task, model: 'sim:', options: {} });
      await mcp.store.setStatus(`r${index}`, index === 1 ? 'failed' : 'completed');
    }
    const listed = await callJson<{ runs: { runId: string; status: string; task: string; createdAt: string }[] }>(
      mcp.client,
      'weft_runs',
      {},
    );
    expect(listed.runs.map((run) => run.runId)).toEqual(['r2', 'r1', 'r0']);
    expect(listed.runs[0]!.task).toBe(`${'tea '.repeat(30)}…`);
    expect(listed.runs[2]).toMatchObject({ task: 'first task', status: 'completed' });
    expect(Date.parse(listed.runs[2]!.createdAt)).not.toBeNaN();

    const failed = await callJson<{ runs: { runId: string }[]; total: number }>(mcp.client, 'weft_runs', {
      status: 'failed',
    });
    expect(failed).toEqual({ runs: [expect.objectContaining({ runId: 'r1' })], total: 1 });
    const one = await callJson<{ runs: { runId: string }[]; total: number }>(mcp.client, 'weft_runs', { limit: 1 });
    expect(one.runs.map((run) => run.runId)).toEqual(['r2']);
    expect(one.total).toBe(3);
    expect(await callError(mcp.client, 'weft_runs', { limit: 100_000 })).toContain('limit');
    expect(await callError(mcp.client, 'weft_runs', { status: 'bogus' })).toContain('status');
  });

  it('shows a run this server drives as running', async () => {
    mcp = await startMcp({ model: SLOW });
    const { runId } = await callJson<Started>(mcp.client, 'weft_run', { task: 'Write a long report on tea' });
    const listed = await callJson<{ runs: { runId: string; status: string }[] }>(mcp.client, 'weft_runs', {});
    expect(listed.runs).toContainEqual(expect.objectContaining({ runId, status: 'running' }));
    await callJson(mcp.client, 'weft_cancel', { runId });
  });
});

describe('run resources', () => {
  it('lists the newest 100 runs as resources, under the weft://runs/{id} template', async () => {
    mcp = await startMcp();
    for (let index = 0; index < 120; index++) {
      await mcp.store.createRun({ runId: `run-${index}`, task: `task ${index}\nmore`, model: 'sim:', options: {} });
    }
    const { resources } = await mcp.client.listResources();
    expect(resources).toHaveLength(100);
    expect(resources[0]).toMatchObject({ uri: 'weft://runs/run-119', name: 'run-119: task 119' });
    expect(resources.at(-1)!.uri).toBe('weft://runs/run-20');
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['weft://runs/{id}']);
  });

  it('tells a subscribed client when a run starts and ends, and only for the runs it subscribed to', async () => {
    mcp = await startMcp({ model: 'sim:seed=3,tasks=3,latency=fixed(50)' });
    const { client } = mcp;
    const updated: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);

    const watched = await callJson<Started>(client, 'weft_run', { task: 'Write a short report on tea' });
    const uri = `weft://runs/${watched.runId}`;
    await client.subscribeResource({ uri });
    const other = await callJson<Started>(client, 'weft_run', { task: 'Write a short report on coffee' });
    const otherUri = `weft://runs/${other.runId}`;
    // Subscribed and unsubscribed while it still runs: no news of it.
    await client.subscribeResource({ uri: otherUri });
    await client.unsubscribeResource({ uri: otherUri });
    const unwatched = await callJson<Started>(client, 'weft_run', { task: 'Write a short report on cocoa' });
    await mcp.settled();
    // The end's notification is sent as the run settles; let it arrive.
    for (let turn = 0; turn < 50 && !updated.includes(uri); turn++) await new Promise((r) => setTimeout(r, 10));
    expect(updated).toContain(uri);
    expect(updated).not.toContain(otherUri);
    expect(updated).not.toContain(`weft://runs/${unwatched.runId}`);
    expect(listChanged).toBeGreaterThanOrEqual(3);
    const read = await client.readResource({ uri });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ status: 'completed' });

    await expect(client.subscribeResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/Not a Weft run/);
  });

  it("tells a subscribed client when another process's run changes status in the store", async () => {
    mcp = await startMcp({ pollMs: 20 });
    const { client, store } = mcp;
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
    });
    const owner = { pid: process.ppid, host: hostname() };
    for (const runId of ['theirs', 'unwatched']) {
      await store.createRun({ runId, task: 'tea', model: 'sim:', options: {}, owner });
    }
    await client.subscribeResource({ uri: 'weft://runs/theirs' });
    // Unchanged: nothing to tell, however often the store is looked at.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(updated).toEqual([]);
    await store.setStatus('theirs', 'completed');
    await store.setStatus('unwatched', 'completed');
    for (let turn = 0; turn < 200 && updated.length === 0; turn++) await new Promise((r) => setTimeout(r, 10));
    expect(updated).toEqual(['weft://runs/theirs']);
  });
});
