/**
 * Tools inside a run: 200 subtasks whose role calls tools, each making 3 tool calls (place an order,
 * look it up, update it) against a local HTTP API through http tools of a real tools file, at concurrency 16,
 * through `runTask` with the SQLite store. Every tool call is written ahead of its request (one durable write each),
 * so this measures the whole path: model turn, argument validation, HTTP, both events, the report.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Workflow } from '../src/graph/index.js';
import type { ChatCall, ChatModel, ChatResult } from '../src/llm/chat-model.js';
import { runTask } from '../src/run/run-task.js';
import { openRunStore } from '../src/store/open-store.js';
import { loadToolsFile } from '../src/tools/tools-file.js';
import type { Bench, BenchReport } from './report.js';
import { percentile } from './stats.js';

const SUBTASKS = 200;
const CALLS_PER_SUBTASK = 3;
const CONCURRENCY = 16;
const REPEATS = 3;

export const toolRunBench: Bench = {
  name: 'tool-run',
  async run(): Promise<BenchReport> {
    const api = await startApi();
    try {
      await timeRun(api.url, 20); // JIT warm-up
      const samples: { ms: number; requests: number }[] = [];
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const before = api.requests();
        const ms = await timeRun(api.url, SUBTASKS);
        samples.push({ ms, requests: api.requests() - before });
      }
      const makespan = percentile(
        samples.map((sample) => sample.ms),
        0.5,
      );
      const requests = samples[0]!.requests;
      return {
        title: `Tool run: ${SUBTASKS} subtasks x ${CALLS_PER_SUBTASK} tool calls on a local HTTP API, concurrency ${CONCURRENCY}, SQLite store (median of ${REPEATS})`,
        rows: [
          { label: 'makespan', value: makespan, unit: 'ms' },
          { label: 'requests per second', value: Math.round((requests / makespan) * 1000) },
        ],
        notes: [
          `runs: ${samples.map((sample) => sample.ms.toFixed(0)).join(', ')} ms; ${requests} requests per run (expected ${SUBTASKS * CALLS_PER_SUBTASK}).`,
          'Each tool call: a tool-call event made durable before the request (write-ahead), the request, a tool-result event; the model answers at once.',
        ],
      };
    } finally {
      await api.close();
    }
  },
};

async function timeRun(url: string, subtasks: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-tools-'));
  try {
    const toolsFile = join(dir, 'tools.yaml');
    writeFileSync(toolsFile, toolsYaml(url));
    const started = performance.now();
    const tools = await loadToolsFile(toolsFile);
    const store = await openRunStore({ home: dir });
    const result = await runTask({
      task: 'place orders',
      plan: plan(subtasks),
      model: toolModel(),
      store,
      home: dir,
      run: { concurrency: CONCURRENCY },
      tools: { available: tools.tools },
    });
    await store.close();
    await tools.close();
    const ms = performance.now() - started;
    if (result.status !== 'completed') throw new Error(`The tool run ended ${result.status}: ${result.reason ?? ''}`);
    if (result.toolCalls !== subtasks * CALLS_PER_SUBTASK)
      throw new Error(`Expected ${subtasks * CALLS_PER_SUBTASK} tool calls, got ${result.toolCalls}`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function plan(subtasks: number): Workflow {
  return {
    task: 'place orders',
    roles: [
      { name: 'clerk', prompt: 'You place orders.', kind: 'llm', tools: ['create_order', 'get_order', 'update_order'] },
    ],
    subtasks: Array.from({ length: subtasks }, (_, index) => ({
      id: `s${index}`,
      objective: `order item ${index}`,
      agent: 'clerk',
      dependsOn: [],
      status: 'not started' as const,
      attempts: 0,
    })),
  };
}

function toolsYaml(url: string): string {
  return `allowHosts: ["${new URL(url).host}"]
tools:
  - kind: http
    name: create_order
    description: Places an order.
    method: POST
    url: ${url}/orders
    input: { type: object, properties: { item: { type: string } }, required: [item] }
  - kind: http
    name: get_order
    description: One order.
    url: ${url}/orders/{id}
    input: { type: object, properties: { id: { type: integer } }, required: [id] }
  - kind: http
    name: update_order
    description: Changes an order's status.
    method: PATCH
    url: ${url}/orders/{id}
    input: { type: object, properties: { id: { type: integer }, status: { type: string } }, required: [id, status] }
`;
}

const reply = (text: string, toolCalls?: ChatResult['toolCalls']): ChatResult => ({
  text,
  usage: { inputTokens: 0, outputTokens: 0 },
  model: 'bench',
  ...(toolCalls ? { toolCalls } : {}),
});

/** Places, looks up and updates one order per subtask, then answers; the verifier accepts. */
function toolModel(): ChatModel {
  return {
    id: 'bench:tools',
    kind: 'sim',
    toolCalling: 'native',
    async generate(call: ChatCall): Promise<ChatResult> {
      if (call.tag?.purpose === 'verify') return reply('{"verdict":"accept","reason":"ok"}');
      const key = call.tag?.key ?? '';
      const results = call.messages.filter((message) => message.role === 'tool');
      const id = results.length > 0 ? (JSON.parse(results[0]!.content) as { id: number }).id : 0;
      const next = (name: string, args: unknown) => reply('', [{ id: `c${results.length}`, name, args }]);
      if (results.length === 0) return next('create_order', { item: key });
      if (results.length === 1) return next('get_order', { id });
      if (results.length === 2) return next('update_order', { id, status: 'confirmed' });
      return reply(`order ${id} confirmed`);
    },
  };
}

async function startApi(): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  const orders = new Map<number, { id: number; item: string; status: string }>();
  let next = 1;
  let requests = 0;
  const server = createServer(async (request, response) => {
    requests += 1;
    let body = '';
    for await (const chunk of request) body += chunk;
    const send = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    const match = /^\/orders\/(\d+)$/.exec(request.url ?? '');
    if (request.method === 'POST' && request.url === '/orders') {
      const order = { id: next++, item: String((JSON.parse(body) as { item: string }).item), status: 'placed' };
      orders.set(order.id, order);
      return send(201, order);
    }
    const order = match ? orders.get(Number(match[1])) : undefined;
    if (!order) return send(404, { error: 'no such order' });
    if (request.method === 'PATCH') order.status = String((JSON.parse(body) as { status: string }).status);
    send(200, order);
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
