/**
 * `--max-calls`, `--max-tokens`, `--max-cost` and `--timeout` on `weft chat`, `weft simulate` and `weft dialog
 * eval`: parsed as `weft run` parses them (a bad value is refused naming the flag, before anything is opened), and
 * a spent budget ends the command with the located BUDGET error, the usage in `--json`, and the session kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAT_MODEL, CHAT_PDL } from './chat-harness.js';
import { cli as weft } from './cli-harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-conversation-budgets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshHome = () => join(scratch, `home-${(n += 1)}`);

const DIALOG = 'test/fixtures/dialog';
const SIMULATE = [
  'simulate',
  `${DIALOG}/refund.pdl.yaml`,
  '--profiles',
  `${DIALOG}/refund-profiles.jsonl`,
  '--model',
  'sim:seed=1',
  '--user-model',
  'sim:seed=2',
  '--judge',
  'sim:seed=3',
];
const DIALOG_EVAL = [
  'dialog',
  'eval',
  `${DIALOG}/refund.pdl.yaml`,
  '--references',
  `${DIALOG}/refund-references.jsonl`,
  '--model',
  'sim:seed=1',
  '--judge',
  'sim:seed=3',
];

interface ErrorJson {
  error: { code: string; message: string; location?: { field?: string } };
}

describe('conversation budgets on the command line', () => {
  const bad: [flag: string, value: string][] = [
    ['--max-calls', '0'],
    ['--max-calls', '2.5'],
    ['--max-tokens', 'many'],
    ['--max-cost', '-1'],
    ['--timeout', '0'],
  ];
  for (const command of [['chat', CHAT_PDL, '--model', CHAT_MODEL], SIMULATE, DIALOG_EVAL]) {
    it(`weft ${command[0] === 'dialog' ? 'dialog eval' : command[0]} refuses bad budget values, naming the flag`, async () => {
      for (const [flag, value] of bad) {
        const home = freshHome();
        const result = await weft([...command, flag, value, '--home', home, '--json'], { WEFT_HOME: home }, '');
        expect(result.code, `${flag} ${value}`).toBe(2);
        const document = JSON.parse(result.stdout) as ErrorJson;
        expect(document.error).toMatchObject({ code: 'BAD_INPUT', location: { field: flag } });
        expect(result.stderr).toContain(flag);
      }
    });
  }

  it('weft chat: a spent budget ends the chat with the located error and the usage; the session is kept and shown stopped', async () => {
    const home = freshHome();
    const chat = await weft(
      ['chat', CHAT_PDL, '--model', CHAT_MODEL, '--home', home, '--max-calls', '2', '--json'],
      { WEFT_TEST_API_LOG: join(scratch, 'api-chat.jsonl') },
      'I want a refund\nemail: ada@example.com, order_id: O-7\nthis line is never read\n',
    );
    expect(chat.code, chat.stderr).toBe(1);
    const document = JSON.parse(chat.stdout) as ErrorJson & {
      sessionId: string;
      status: string;
      turns: unknown[];
      budget: { limits: object; usage: { calls: number }; stopped: { budget: string; field: string } };
    };
    expect(document.status).toBe('open');
    expect(document.turns).toHaveLength(1);
    expect(document.budget).toMatchObject({
      limits: { maxCalls: 2 },
      usage: { calls: 2 },
      stopped: { budget: 'maxCalls', field: '--max-calls' },
    });
    expect(document.error).toEqual({
      code: 'BUDGET',
      message: 'Budget exhausted: call budget of 2 reached',
      location: { field: '--max-calls' },
    });
    expect(chat.stderr).toContain(`weft chat --session ${document.sessionId}`);

    const shown = await weft(['show-session', document.sessionId, '--home', home]);
    expect(shown.stdout).toContain('user> email: ada@example.com, order_id: O-7');
    expect(shown.stdout).toContain('stopped by the budget: call budget of 2 reached (--max-calls)');

    // Resumed with a budget the log has already spent: refused at once, nothing more is called.
    const resumed = await weft(
      ['chat', '--session', document.sessionId, '--home', home, '--max-calls', '2', '--json'],
      { WEFT_TEST_API_LOG: join(scratch, 'api-chat.jsonl') },
      'hello\n',
    );
    expect(resumed.code).toBe(1);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ budget: { usage: { calls: 2 } }, error: { code: 'BUDGET' } });
  });

  it('weft simulate: a spent budget stops the batch; --json has the report, the budget and the located error', async () => {
    const home = freshHome();
    const result = await weft(
      [...SIMULATE, '--sessions', '6', '--max-calls', '30', '--keep-sessions', '--home', home, '--json'],
      { WEFT_TEST_API_LOG: join(scratch, 'api-simulate.jsonl') },
    );
    expect(result.code, result.stderr).toBe(1);
    const document = JSON.parse(result.stdout) as ErrorJson & {
      perSession: unknown[];
      budget: { usage: { calls: number }; stopped: { finished: number; of: number; unfinished: string[] } };
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    expect(document.budget.usage.calls).toBe(30);
    expect(document.budget.stopped).toMatchObject({ finished: document.perSession.length, of: 6 });
    expect(document.perSession.length).toBeLessThan(6);
    expect(document.budget.stopped.unfinished.length).toBeGreaterThan(0);
    for (const sessionId of document.budget.stopped.unfinished) {
      const shown = await weft(['show-session', sessionId, '--home', home]);
      expect(shown.stdout).toContain('stopped by the budget');
    }
    expect(result.stderr).toContain('simulate stopped by the budget');
  });

  it('weft dialog eval: a spent budget stops the evaluation with the report of the moves that finished', async () => {
    const result = await weft([...DIALOG_EVAL, '--max-tokens', '3000', '--home', freshHome(), '--json']);
    expect(result.code, result.stderr).toBe(1);
    const document = JSON.parse(result.stdout) as ErrorJson & {
      turns: number;
      budget: { stopped: { budget: string; finished: number } };
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-tokens' } });
    expect(document.budget.stopped).toMatchObject({ budget: 'maxTokens', finished: document.turns });
  });
});
