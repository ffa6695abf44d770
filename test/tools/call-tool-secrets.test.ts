/**
 * A tool's secret arguments are `[redacted]` in the log and in traces; an error that quotes one (a server's "bad
 * token …", a validator naming the value) is redacted the same way before it reaches the log, a span or the model.
 */
import { describe, expect, it } from 'vitest';
import { callTool } from '../../src/tools/call-tool.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';

function echoingTool(schema: Record<string, unknown> = { type: 'object' }): Tool {
  return {
    name: 'login',
    description: 'logs in',
    inputSchema: schema,
    secretArgs: ['token', 'pair'],
    source: 'test',
    idempotent: true,
    call: async (args: JsonValue) => {
      const { token, pair, user } = args as { token: string; pair?: unknown; user: string };
      throw Object.assign(new Error(`401 for ${user}: bad token ${token} (pair ${JSON.stringify(pair)})`), {
        retryable: true,
      });
    },
  };
}

describe('callTool and secret arguments', () => {
  it("a tool's error quoting a secret argument shows it [redacted]; other arguments and short values stay", async () => {
    const outcome = await callTool(
      echoingTool(),
      { token: 'tok-S3CRET-value', pair: { a: 'S3CRET2' }, user: 'alice' },
      { retries: 1, retryDelayMs: 1 },
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toBe('login: 401 for alice: bad token [redacted] (pair [redacted])');
    // Still retryable (retried once), and the cause (which quotes the value) is not kept.
    expect(outcome.attempts).toBe(2);
    expect(outcome.error.retryable).toBe(true);
    expect(String(outcome.error.cause ?? '')).not.toContain('S3CRET');
    const short = await callTool(echoingTool(), { token: 'ab', user: 'alice' });
    expect(!short.ok && short.error.message).toContain('bad token ab');
  });

  it('a validation error quoting the secret value is redacted too', async () => {
    const tool = echoingTool({
      type: 'object',
      properties: { token: { type: 'string', pattern: '^sk-' } },
      required: ['token'],
    });
    const outcome = await callTool(tool, { token: 'not-a-key-S3CRET' });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).not.toContain('S3CRET');
  });
});
