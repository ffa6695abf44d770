/**
 * The quick start of procedures in docs/pdl.md, offline: `weft chat` on the order-return procedure with the scripted
 * replies and the user's lines from chat.txt. Against one business API, after the tools example (the order the docs
 * give them in) and twice in a row, the return is made and refunded every time with no step in between: the API
 * keeps each run and chat session's state apart. Against an API whose state is shared, the second chat's return
 * fails and the bot says so instead of claiming it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBusinessApi } from '../../examples/business-api/business-api.js';
import { cli } from '../cli/cli-harness.js';
import { ROOT, weft } from '../e2e/weft-cli.js';

const home = mkdtempSync(join(tmpdir(), 'weft-quickstart-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const P = 'examples/procedures/order-return';
const chatLines = readFileSync(join(ROOT, P, 'chat.txt'), 'utf8');

function chat(url: string): ReturnType<typeof cli> {
  return cli(
    [
      'chat',
      `${P}/order-return.pdl.yaml`,
      '--tools',
      'examples/business-api/tools.yaml',
      '--model',
      `scripted:${P}/replies.json`,
      '--home',
      home,
    ],
    { BUSINESS_API_URL: url },
    chatLines,
  );
}

describe('procedures quick start: chat with a procedure offline', () => {
  it('returns and refunds the webcam after the tools example and again on a second chat, against one API', async () => {
    const api = await startBusinessApi({ port: 0 });
    try {
      const tools = await weft(
        [
          'run',
          '--plan',
          'examples/tools/plan.yaml',
          '--tools',
          'examples/tools/tools.yaml',
          '--model',
          'scripted:examples/tools/replies.json',
          '--home',
          home,
        ],
        { BUSINESS_API_URL: api.url },
      );
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toContain('refund RF-0001 of $69.00');
      for (const round of [1, 2]) {
        const { code, stdout, stderr } = await chat(api.url);
        expect(code, `chat ${round}: ${stderr}`).toBe(0);
        expect(stdout).toContain('you> grace@example.com');
        expect(stdout).toContain('bot> Done: return R-0001 is approved, and refund RF-0001 of $69');
        expect(stdout).not.toContain('could not');
      }
      const stats = api.stats();
      expect(stats.violations).toBe(0);
      // One refund per demo run: the tools example and the two chats.
      expect(stats.byEndpoint['POST /refunds']).toBe(3);
    } finally {
      await api.close();
    }
  });

  it('against a shared API state, the second chat says the return could not be opened, and claims nothing', async () => {
    const api = await startBusinessApi({ port: 0, shared: true });
    try {
      expect((await chat(api.url)).stdout).toContain('bot> Done: return R-0001 is approved');
      const { code, stdout, stderr } = await chat(api.url);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('bot> I could not open the return: create_return: HTTP 422');
      expect(stdout).toContain('Nothing was returned or refunded.');
      expect(stdout).not.toContain('Done:');
      // The bot stopped at the failed return: nothing was approved or refunded a second time.
      expect(api.stats().byEndpoint['POST /returns/{id}/approve']).toBe(1);
      expect(api.stats().byEndpoint['POST /refunds']).toBe(1);
    } finally {
      await api.close();
    }
  });
});
