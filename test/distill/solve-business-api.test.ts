/**
 * The execute stage against the real business API (examples/business-api, a real HTTP server on 127.0.0.1): the sim
 * follows a reference workflow through http tools, a secret argument is redacted in the trace, and an unknown
 * customer (a tool error the agent sees) makes an unsuccessful trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { withDistillSim } from '../../src/distill/distill-sim.js';
import { solveTask } from '../../src/distill/solve.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { createModel } from '../../src/llm/resolve-model.js';
import type { ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';

const reference: ExecutableWorkflow = {
  name: 'verified_customer',
  inputs: { email: { type: 'string' }, postal_code: { type: 'string' } },
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'find', kind: 'tool', tool: 'find_customer', args: { email: '{% inputs.email %}' }, out: 'customer' },
    {
      id: 'verify',
      kind: 'tool',
      tool: 'verify_customer',
      args: { customer_id: '{% vars.customer.customer_id %}', postal_code: '{% inputs.postal_code %}' },
      out: 'check',
    },
    { id: 'end', kind: 'end', output: { name: '{% vars.customer.name %}', verified: '{% vars.check.verified %}' } },
  ],
  edges: [
    { from: 'start', to: 'find' },
    { from: 'find', to: 'verify' },
    { from: 'verify', to: 'end' },
  ],
};

let api: BusinessApi;
let tools: ToolSet;
beforeAll(async () => {
  api = await startBusinessApi({ port: 0 });
  tools = await loadToolsFile('examples/business-api/tools.yaml', { env: { BUSINESS_API_URL: api.url } });
});
afterAll(async () => {
  await tools?.close();
  await api?.close();
});

describe('solveTask against the business API', () => {
  it('follows the reference through real HTTP calls, with the postal code redacted', async () => {
    const model = withDistillSim(await createModel('sim:seed=1'), reference);
    const trace = await solveTask({
      model,
      tools: tools.tools,
      task: 'Find the customer by email and verify them with their postal code',
      input: { email: 'ada@example.com', postal_code: '10001' },
      mode: 'plan-execute',
      expected: { name: 'Ada Lovelace', verified: true },
    });
    expect(trace).toMatchObject({ success: true, answer: { name: 'Ada Lovelace', verified: true } });
    expect(trace.calls.map((call) => [call.tool, call.args, call.ok])).toEqual([
      ['find_customer', { email: 'ada@example.com' }, true],
      ['verify_customer', { customer_id: 'C-1001', postal_code: '[redacted]' }, true],
    ]);
    expect(trace.plan).toHaveLength(2);
    expect(api.stats().byEndpoint).toMatchObject({ 'GET /customers': 1, 'POST /customers/{id}/verify': 1 });
  });

  it('a failed call (an unknown customer) ends the solve unsuccessful, saying why', async () => {
    const model = withDistillSim(await createModel('sim:seed=1'), reference);
    const trace = await solveTask({
      model,
      tools: tools.tools,
      task: 'Find the customer by email and verify them with their postal code',
      input: { email: 'nobody@example.com', postal_code: '99999' },
    });
    expect(trace.success).toBe(false);
    expect(trace.calls).toEqual([expect.objectContaining({ tool: 'find_customer', ok: false })]);
    expect(trace.error).toContain('I could not finish: the tool find_customer failed');
  });
});
