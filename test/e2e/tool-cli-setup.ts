/** The files a `weft run --tools` of the order plan needs: a plan, a tools file for the order service, a model. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './weft-cli.js';

export const ORDERS_MODEL = `scripted:${join(ROOT, 'test/fixtures/tools/orders-model.mjs')}`;

export function orderRunFiles(url: string, subtasks: readonly string[] = ['a', 'b', 'c']) {
  const dir = mkdtempSync(join(tmpdir(), 'weft-tool-cli-'));
  const plan = join(dir, 'plan.json');
  const tools = join(dir, 'tools.yaml');
  writeFileSync(
    plan,
    JSON.stringify({
      task: 'place the orders',
      roles: [
        { name: 'clerk', prompt: 'You place orders.', tools: ['create_order', 'get_order'] },
        { name: 'writer', prompt: 'You write.' },
      ],
      subtasks: [
        ...subtasks.map((id) => ({ id, objective: `order ${id}`, agent: 'clerk' })),
        { id: 'sum', objective: 'summarise', agent: 'writer', dependsOn: [...subtasks] },
      ],
    }),
  );
  const host = new URL(url).host;
  writeFileSync(
    tools,
    `allowHosts: ["${host}"]
tools:
  - kind: http
    name: create_order
    description: Places an order for an item.
    method: POST
    url: ${url}/orders
    headers: { Authorization: "Bearer \${env:ORDERS_TOKEN}" }
    input: { type: object, properties: { item: { type: string } }, required: [item] }
  - kind: http
    name: get_order
    description: Looks an order up by id.
    url: ${url}/orders/{id}
    input: { type: object, properties: { id: { type: integer } }, required: [id] }
`,
  );
  return { dir, plan, tools, home: join(dir, 'home') };
}
