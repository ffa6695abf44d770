/**
 * A client names a file that is no Weft file but holds secrets (a password file, a JSON of keys): each tool's error
 * quotes at most a few characters of it (MAX_QUOTED_CHARS), not one unknown key per line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUOTED_CHARS } from '../../src/errors.js';
import { callError, type McpHarness, startMcp } from './mcp-harness.js';

const LINES = 30;
/** Line i's secret: a mark no other text holds, then a long tail. */
const secret = (i: number) => `TOKEN${String(i).padStart(2, '0')}${'q'.repeat(50)}TAIL${i}`;

let mcp: McpHarness | undefined;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-mcp-secrets-'));
  const lines = Array.from({ length: LINES }, (_, i) => `user${i}:$6$${secret(i)}:19000:0:99999:7:::`);
  writeFileSync(join(dir, 'shadow'), `${lines.join('\n')}\n`);
  const keys = Array.from({ length: LINES }, (_, i) => `"${secret(i)}": "${secret(i)}"`);
  writeFileSync(join(dir, 'keys.json'), `{\n${keys.join(',\n')}\n}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

/** Asserts that an error repeats no secret but the first line's opening characters. */
function expectClipped(error: string): void {
  for (let i = 1; i < LINES; i++) expect(error).not.toContain(`TOKEN${String(i).padStart(2, '0')}`);
  expect(error).not.toContain('TAIL0');
  // What is left of the first line is no longer than the limit.
  const longest = Math.max(0, ...[...error.matchAll(/TOKEN00q*/g)].map((match) => match[0].length));
  expect(longest).toBeLessThanOrEqual(MAX_QUOTED_CHARS);
}

describe('weft mcp: errors about a file quote little of it', () => {
  it('weft_exec, weft_run and weft_plan answer a secrets file with an error that clips its lines', async () => {
    mcp = await startMcp();
    for (const name of ['shadow', 'keys.json']) {
      const file = join(dir, name);
      const errors = [
        await callError(mcp.client, 'weft_exec', { workflow: file }),
        await callError(mcp.client, 'weft_run', { plan: file }),
        await callError(mcp.client, 'weft_run', { task: 'tea', teams: [file] }),
        await callError(mcp.client, 'weft_run', { task: 'tea', tools: file }),
        await callError(mcp.client, 'weft_plan', { task: 'tea', tools: file }),
      ];
      for (const error of errors) {
        expect(error).toMatch(/^(BAD_INPUT|PLAN_INVALID): /);
        expectClipped(error);
      }
    }
  });
});
