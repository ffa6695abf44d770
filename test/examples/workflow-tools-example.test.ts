/**
 * examples/workflow-tools, run as its README says (in-process): distilled workflows offered as tools, listed and
 * called by `weft tools`, called by a Flow agent (`weft run`, scripted model) and by a procedure's bot (`weft chat`,
 * scripted bot). The scripted replies that end each subtask or turn match only when the workflow's result (or its
 * error) is in the prompt, so a completed run shows the result reached the agent.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli as weft, tempHome } from '../cli/cli-harness.js';
import { jsonDocument } from '../e2e/weft-cli.js';

const DIR = 'examples/workflow-tools';
const TOOLS = `${DIR}/tools.yaml`;
const home = tempHome();
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('examples/workflow-tools', () => {
  it('weft tools list shows each workflow tool: its workflow file, its inputs, the tools it calls', async () => {
    const text = await weft(['tools', 'list', '--tools', TOOLS]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split('\n').slice(0, 4)).toEqual([
      `basket_total  workflow ../distill-suite/basket-total/reference.workflow.json (${TOOLS}:5)  (idempotent)`,
      '  Price a shopping basket: for each item look up its unit price by SKU (catalog_price), multiply by the quantity, add up the lines (sum) and round to two decimals.',
      '    items: array (required)',
      '  workflow basket_total: calls catalog_price, multiply, sum, round (from ../distill-suite/tools/kit.tools.yaml); deadline 10000 ms, at most 10000 node visits',
    ]);
    const json = jsonDocument(await weft(['tools', 'list', '--tools', TOOLS, '--json'])) as {
      tools: { name: string; kind?: string; inputSchema: unknown; workflow?: Record<string, unknown> }[];
    };
    expect(json.tools.map((tool) => [tool.name, tool.kind])).toEqual([
      ['basket_total', 'workflow'],
      ['add_up_to', 'workflow'],
    ]);
    expect(json.tools[1]).toMatchObject({
      inputSchema: { properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
      workflow: { file: '../distill-suite/sum-to-n/reference.workflow.json', name: 'sum_to_n', calls: ['add'] },
    });
  });

  it('weft tools call runs one: its result, exit 2 for bad arguments, exit 1 naming the node where it failed', async () => {
    const [ok, bad, failed] = await Promise.all([
      weft(['tools', 'call', 'add_up_to', '--args', '{"n": 10}', '--tools', TOOLS]),
      weft(['tools', 'call', 'add_up_to', '--args', '{"n": -1}', '--tools', TOOLS]),
      weft([
        'tools',
        'call',
        'basket_total',
        '--args',
        '{"items": [{"sku": "NOPE-9", "quantity": 1}]}',
        '--tools',
        TOOLS,
        '--json',
      ]),
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: '55\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('add_up_to: argument "n" must be >= 0');
    expect(failed.code).toBe(1);
    expect(jsonDocument(failed)).toMatchObject({
      tool: 'basket_total',
      ok: false,
      error: {
        code: 'TOOL',
        message: expect.stringMatching(/^basket_total: node price: tool catalog_price failed: .*unknown SKU "NOPE-9"/),
      },
    });
  });

  it('weft run: an agent calls the workflow tools, the calls are recorded, results and errors reach it', async () => {
    const run = await weft([
      'run',
      '--plan',
      `${DIR}/plan.yaml`,
      '--tools',
      TOOLS,
      '--model',
      `scripted:${DIR}/replies.json`,
      '--home',
      home,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonDocument(run) as {
      status: string;
      toolCalls: number;
      runDir: string;
      tasks: { id: string; output: string }[];
    };
    expect(summary.status).toBe('completed');
    expect(summary.toolCalls).toBe(3);
    expect(Object.fromEntries(summary.tasks.map((task) => [task.id, task.output]))).toEqual({
      quote: 'The basket (2 × MUG-02 and 1 × LAMP-3) costs EUR 55.90.',
      unknown:
        'The basket cannot be priced: NOPE-9 is not in the catalogue (basket_total stopped at its price lookup).',
      sum: '1 + 2 + … + 100 = 5050.',
    });
    const report = readFileSync(join(summary.runDir, 'report.md'), 'utf8');
    expect(report).toContain(
      '`basket_total {"items":[{"sku":"MUG-02","quantity":2},{"sku":"LAMP-3","quantity":1}]} → ok',
    );
    expect(report).toMatch(/`add_up_to \{"n":100\} → ok \d+ ms: 5050`/);
    expect(report).toMatch(
      /`basket_total \{"items":\[\{"sku":"NOPE-9","quantity":1\}\]\} → TOOL \d+ ms: basket_total: node price: tool catalog_price failed/,
    );
  });

  it("weft chat: a procedure's API is a workflow tool of its own tools: section; the session records the calls", async () => {
    const chat = await weft(
      ['chat', `${DIR}/basket.pdl.yaml`, '--model', `scripted:${DIR}/chat-replies.json`, '--home', home, '--json'],
      {},
      '2 × MUG-02 and 1 × LAMP-3, please\n1 × NOPE-9\n',
    );
    expect(chat.code, chat.stderr).toBe(0);
    const document = JSON.parse(chat.stdout) as {
      sessionId: string;
      turns: { reply: string; toolCalls: number }[];
      totals: { toolCalls: number; failedToolCalls: number };
    };
    expect(document.turns.map((turn) => [turn.reply, turn.toolCalls])).toEqual([
      ['Your basket (2 × MUG-02 and 1 × LAMP-3) costs EUR 55.90.', 1],
      ['NOPE-9 is not in our catalogue, so I cannot price that basket.', 1],
    ]);
    expect(document.totals).toMatchObject({ toolCalls: 2, failedToolCalls: 1 });
    const shown = await weft(['show-session', document.sessionId, '--home', home]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      '→ basket_total({"items":[{"sku":"MUG-02","quantity":2},{"sku":"LAMP-3","quantity":1}]}) = 55.9',
    );
    expect(shown.stdout).toContain(
      '→ basket_total({"items":[{"sku":"NOPE-9","quantity":1}]}) = error: basket_total: node price: tool catalog_price failed',
    );
  });
});
