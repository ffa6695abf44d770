/**
 * `weft chat` stopped by Ctrl-C (SIGINT) or SIGTERM in the middle of an API call: it saves the session, exits 130
 * and says how to resume; the resume finishes the cut turn without calling that API again. (kill -9 is in
 * test/cli/chat-command.test.ts; these two need four more child processes, so they run with the long tests.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cutMidCallAndResume } from '../cli/chat-harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-chat-signals-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
function fresh(): { home: string; log: string } {
  n++;
  return { home: join(scratch, `home-${n}`), log: join(scratch, `api-${n}.jsonl`) };
}

describe('weft chat stopped by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} in the middle of an API call: the resume does not call it again and finishes the turn`, async () => {
      const { first, exit, sessionId } = await cutMidCallAndResume(signal, fresh());
      expect(exit.code).toBe(130);
      expect(first.stderr).toContain(`weft chat --session ${sessionId}`);
    });
  }
});
