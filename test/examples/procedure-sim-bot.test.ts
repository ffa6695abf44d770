/**
 * The `sim:` bot on the shipped procedures, against a fresh business API: `weft chat --model sim:` with the person's
 * plain lines of order-return/chat.txt reaches the return and the refund, each API called once with the right
 * arguments and no detail asked twice; and `weft simulate` with every procedure's shipped profiles reaches every
 * session's goals.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBusinessApi } from '../../examples/business-api/business-api.js';
import { PROCEDURE_TOOLS, PROCEDURES_DIR } from '../../examples/procedures/reference-replay.js';
import { loadPdlFile } from '../../src/dialog/parse-pdl.js';
import { cli } from '../cli/cli-harness.js';
import { ROOT } from '../e2e/weft-cli.js';

const home = mkdtempSync(join(tmpdir(), 'weft-sim-bot-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

interface ToolEntry {
  readonly role: 'tool';
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly ok: boolean;
  readonly preconditionsMet: boolean;
}

describe('the sim bot follows the shipped procedures', () => {
  it('chat.txt: returns and refunds the webcam, each API once with the right arguments, no detail asked twice', async () => {
    const api = await startBusinessApi({ port: 0 });
    try {
      const procedure = 'examples/procedures/order-return/order-return.pdl.yaml';
      const chat = await cli(
        ['chat', procedure, '--tools', 'examples/business-api/tools.yaml', '--model', 'sim:', '--home', home, '--json'],
        { BUSINESS_API_URL: api.url },
        readFileSync(join(ROOT, 'examples/procedures/order-return/chat.txt'), 'utf8'),
      );
      expect(chat.code, chat.stderr).toBe(0);
      const { sessionId, turns } = JSON.parse(chat.stdout) as { sessionId: string; turns: { reply: string }[] };
      const shown = await cli(['show-session', sessionId, '--home', home, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      const transcript = (JSON.parse(shown.stdout) as { transcript: { role: string }[] }).transcript;
      const calls = transcript.filter((entry): entry is ToolEntry => entry.role === 'tool');
      expect(calls.map(({ name, args, ok, preconditionsMet }) => ({ name, args, ok, preconditionsMet }))).toEqual([
        { name: 'find_customer', args: { email: 'grace@example.com' }, ok: true, preconditionsMet: true },
        {
          name: 'verify_customer',
          // The postal code is a secret argument: the session records it redacted (the API's stats show it matched).
          args: { customer_id: 'C-1002', postal_code: '[redacted]' },
          ok: true,
          preconditionsMet: true,
        },
        { name: 'get_order', args: { order_id: 'O-5005' }, ok: true, preconditionsMet: true },
        {
          name: 'create_return',
          args: {
            order_id: 'O-5005',
            sku: 'WC-03',
            quantity: 1,
            reason: 'The picture is blurry',
            verification_token: 'vt_6ff845bfb34203da',
          },
          ok: true,
          preconditionsMet: true,
        },
        { name: 'approve_return', args: { return_id: 'R-0001' }, ok: true, preconditionsMet: true },
        {
          name: 'issue_refund',
          args: { return_id: 'R-0001', method: 'original_payment' },
          ok: true,
          preconditionsMet: true,
        },
      ]);
      // The goal: the refund is issued, and the server saw no skipped step.
      expect(turns.at(-1)?.reply).toContain('refund_id: RF-0001');
      const stats = api.stats();
      expect(stats.violations).toBe(0);
      expect(stats.byEndpoint['POST /refunds']).toBe(1);
      // No detail asked twice: every slot named in at most one of the bot's questions.
      const pdl = await loadPdlFile(join(ROOT, procedure));
      const questions = turns.map((turn) => turn.reply).filter((reply) => reply.includes('?'));
      expect(questions).toEqual([
        'Could you give me your email?',
        'Could you give me your postal_code?',
        'Could you give me your quantity and reason?',
      ]);
      for (const slot of pdl.slots) {
        expect(questions.filter((question) => question.includes(slot.name)).length, slot.name).toBeLessThanOrEqual(1);
      }
    } finally {
      await api.close();
    }
  });

  it.each(Object.keys(PROCEDURE_TOOLS))(
    '%s: weft simulate with the shipped profiles reaches every goal, no violation proposed',
    async (name) => {
      const api = await startBusinessApi({ port: 0 });
      try {
        const dir = join(PROCEDURES_DIR, name);
        const result = await cli(
          [
            'simulate',
            join(dir, `${name}.pdl.yaml`),
            '--profiles',
            join(dir, 'profiles.jsonl'),
            '--tools',
            PROCEDURE_TOOLS[name]!,
            '--model',
            'sim:',
            '--user-model',
            'sim:seed=2',
            '--judge',
            'sim:',
            '--home',
            home,
            '--json',
          ],
          { BUSINESS_API_URL: api.url },
        );
        expect(result.code, result.stderr).toBe(0);
        const report = JSON.parse(result.stdout) as {
          success: number;
          violationsProposed: number;
          perSession: { id: string; success: boolean }[];
        };
        expect(report.perSession.filter((session) => !session.success).map((session) => session.id)).toEqual([]);
        expect(report.success).toBe(1);
        expect(report.violationsProposed).toBe(0);
        expect(api.stats().violations).toBe(0);
      } finally {
        await api.close();
      }
    },
  );
});
