/**
 * The quick start of procedures in docs/pdl.md, offline: `weft chat` on the order-return procedure with the scripted
 * replies and the user's lines from chat.txt, against a fresh business API. The return is made and refunded, and
 * the API counted no violation.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBusinessApi } from '../../examples/business-api/business-api.js';
import { cli } from '../cli/cli-harness.js';
import { ROOT } from '../e2e/weft-cli.js';

const home = mkdtempSync(join(tmpdir(), 'weft-quickstart-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('procedures quick start: chat with a procedure offline', () => {
  it('returns and refunds the webcam with the scripted bot', async () => {
    const api = await startBusinessApi({ port: 0 });
    try {
      const { code, stdout, stderr } = await cli(
        [
          'chat',
          'examples/procedures/order-return/order-return.pdl.yaml',
          '--tools',
          'examples/business-api/tools.yaml',
          '--model',
          'scripted:examples/procedures/order-return/replies.json',
          '--home',
          home,
        ],
        { BUSINESS_API_URL: api.url },
        readFileSync(join(ROOT, 'examples/procedures/order-return/chat.txt'), 'utf8'),
      );
      expect(code, stderr).toBe(0);
      expect(stdout).toContain('you> grace@example.com');
      expect(stdout).toContain('refund RF-0001 of $69');
      const stats = api.stats();
      expect(stats.violations).toBe(0);
      expect(stats.byEndpoint['POST /refunds']).toBe(1);
    } finally {
      await api.close();
    }
  });
});
