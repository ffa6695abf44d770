/**
 * A careless or hostile client names files the server must not read: /dev/zero (never ends), a named pipe nobody
 * writes to (blocks a thread for ever), a folder, a symlink loop. Each is answered at once as the client's input
 * error, by every tool that takes a file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callError, type McpHarness, startMcp } from './mcp-harness.js';

let mcp: McpHarness | undefined;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-mcp-hostile-'));
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  mkdirSync(join(dir, 'folder'));
  symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
  symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

const hostile = () => [
  ['/dev/zero', 'it is not a regular file'],
  [join(dir, 'pipe'), 'it is not a regular file'],
  [join(dir, 'folder'), 'it is a folder'],
  [join(dir, 'loop-a'), 'ELOOP'],
];

describe('weft mcp: files that are not files', () => {
  it('weft_run refuses them as a plan file, a team file or a tools file', async () => {
    mcp = await startMcp();
    for (const [file, reason] of hostile()) {
      expect(await callError(mcp.client, 'weft_run', { plan: file })).toMatch(
        new RegExp(`^BAD_INPUT: ${file}: cannot read the plan file: .*${reason}`),
      );
      expect(await callError(mcp.client, 'weft_run', { task: 'tea', teams: [file] })).toMatch(
        new RegExp(`^BAD_INPUT: ${file}: cannot read the team file: .*${reason}`),
      );
      expect(await callError(mcp.client, 'weft_run', { task: 'tea', tools: file })).toContain('BAD_INPUT');
    }
    // Nothing was started.
    expect(await mcp.store.listRuns()).toEqual([]);
  });

  it('weft_plan and weft_exec refuse them too', async () => {
    mcp = await startMcp();
    for (const [file, reason] of hostile()) {
      expect(await callError(mcp.client, 'weft_plan', { task: 'tea', teams: [file] })).toContain(reason);
      expect(await callError(mcp.client, 'weft_plan', { task: 'tea', tools: file })).toContain('BAD_INPUT');
      expect(await callError(mcp.client, 'weft_exec', { workflow: file })).toContain('BAD_INPUT');
    }
  });
});

describe('weft mcp: resource URIs that name no run', () => {
  it("subscribing or reading an empty, nested or badly encoded id is the client's error, not a slot nor a crash", async () => {
    mcp = await startMcp();
    for (const uri of ['weft://runs/', 'weft://runs/a/b', 'weft://runs/%E0%A4%A', 'weft://runs/../../etc/passwd']) {
      await expect(mcp.client.subscribeResource({ uri }), uri).rejects.toThrow(/-32602.*Not a Weft run's resource/);
    }
    await expect(mcp.client.readResource({ uri: 'weft://runs/%E0%A4%A' })).rejects.toThrow(
      /-32602.*Not a Weft run's resource/,
    );
    // An id that is one well-encoded segment is fine, known or not (a run that starts later is told about).
    await expect(mcp.client.subscribeResource({ uri: 'weft://runs/not-yet' })).resolves.toEqual({});
    await expect(mcp.client.subscribeResource({ uri: 'weft://runs/with%2Fslash' })).resolves.toEqual({});
  });
});
