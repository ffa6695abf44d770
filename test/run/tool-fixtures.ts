/**
 * A real HTTP order service that counts its requests, tools that call it, and a model that uses them: shared by the
 * in-process tool-run tests and the child process the SIGKILL test kills (test/e2e/tool-crash.test.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCall, ChatModel, ChatResult, ToolCallRequest } from '../../src/llm/chat-model.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';
import type { Workflow } from '../../src/graph/workflow.js';
import { afterEach, beforeEach } from 'vitest';

export interface OrderServer {
  readonly url: string;
  /** Requests received, by `METHOD /path-without-id`, e.g. `POST /orders`. */
  readonly counts: Map<string, number>;
  /** Orders placed (POSTs received, answered or not), by item. */
  readonly posted: Map<string, number>;
  /** The `Weft-Scope` header of each request, in order (http tools send the run they call for). */
  readonly scopes: (string | undefined)[];
  /** While set, a matching request is received (and counted) but never answered; `onHeld` is told. */
  hold: ((route: string) => boolean) | undefined;
  onHeld: ((route: string) => void) | undefined;
  close(): Promise<void>;
}

/**
 * A fresh order service for each test of the calling file (and the token its tools file's header reads); the
 * returned function gives the current one.
 */
export function useOrderServer(): () => OrderServer {
  let server: OrderServer | undefined;
  beforeEach(async () => {
    server = await startOrderServer();
    process.env.ORDERS_TOKEN = 's3cret';
  });
  afterEach(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the order server starts before each test');
    return server;
  };
}

export async function startOrderServer(): Promise<OrderServer> {
  const orders = new Map<number, { id: number; item: string; status: string }>();
  let next = 1;
  const held: ServerResponse[] = [];
  const state: OrderServer = {
    url: '',
    counts: new Map(),
    posted: new Map(),
    scopes: [],
    hold: undefined,
    onHeld: undefined,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const route = `${request.method} ${path.replace(/\/\d+$/, '')}`;
    state.counts.set(route, (state.counts.get(route) ?? 0) + 1);
    state.scopes.push(request.headers['weft-scope'] as string | undefined);
    let body = '';
    for await (const chunk of request) body += chunk;
    if (route === 'POST /orders') {
      const item = String((JSON.parse(body || '{}') as { item?: unknown }).item);
      state.posted.set(item, (state.posted.get(item) ?? 0) + 1);
    }
    if (state.hold?.(route)) {
      held.push(response);
      state.onHeld?.(route);
      return;
    }
    const send = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    if (request.method === 'POST' && path === '/orders') {
      if (request.headers.authorization !== 'Bearer s3cret') return send(401, { error: 'bad token' });
      const { item } = JSON.parse(body) as { item: string };
      const order = { id: next++, item, status: 'placed' };
      orders.set(order.id, order);
      return send(201, order);
    }
    const match = /^\/orders\/(\d+)$/.exec(path);
    if (request.method === 'GET' && match) {
      const order = orders.get(Number(match[1]));
      return order ? send(200, order) : send(404, { error: 'no such order' });
    }
    send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

async function http(url: string, init: RequestInit & { signal: AbortSignal }): Promise<JsonValue> {
  const response = await fetch(url, init);
  const value = (await response.json()) as JsonValue;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(value)}`);
  return value;
}

/** `create_order` (not idempotent; its `token` argument is secret) and `get_order` (idempotent). */
export function orderTools(url: string): Tool[] {
  return [
    {
      name: 'create_order',
      description: 'Places an order for an item.',
      inputSchema: {
        type: 'object',
        properties: { item: { type: 'string' }, token: { type: 'string' } },
        required: ['item', 'token'],
        additionalProperties: false,
      },
      secretArgs: ['token'],
      source: 'test order service',
      call: (args, { signal }) => {
        const { item, token } = args as { item: string; token: string };
        return http(`${url}/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ item }),
          signal,
        });
      },
    },
    {
      name: 'get_order',
      description: 'Looks an order up by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      idempotent: true,
      source: 'test order service',
      call: (args, { signal }) => http(`${url}/orders/${(args as { id: number }).id}`, { signal }),
    },
  ];
}

/**
 * A model that, for each subtask, places an order for the subtask's id, looks it up, and reports it; the verifier
 * accepts. Its answers depend only on the conversation, as a replayed run needs.
 */
export function orderModel(): ChatModel & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  return {
    id: 'test:orders',
    kind: 'scripted',
    toolCalling: 'native',
    calls,
    async generate(call): Promise<ChatResult> {
      calls.push(call);
      const usage = { inputTokens: 10, outputTokens: 5 };
      const key = call.tag?.key ?? '';
      if (call.tag?.purpose === 'verify') return { text: '{"verdict":"accept","reason":"ok"}', usage, model: 'test' };
      if (call.tag?.purpose !== 'execute' || !call.tools) return { text: `output of ${key}`, usage, model: 'test' };
      const results = call.messages.filter((message) => message.role === 'tool');
      const toolCall = (name: string, args: unknown): ToolCallRequest[] => [
        { id: `call_${key}_${results.length}`, name, args },
      ];
      if (results.length === 0)
        return { text: '', toolCalls: toolCall('create_order', { item: key, token: 's3cret' }), usage, model: 'test' };
      const last = results.at(-1)!;
      if (last.role === 'tool' && last.isError)
        return { text: `could not place: ${last.content}`, usage, model: 'test' };
      if (results.length === 1) {
        const order = JSON.parse(last.content) as { id: number };
        return { text: '', toolCalls: toolCall('get_order', { id: order.id }), usage, model: 'test' };
      }
      const order = JSON.parse(last.content) as { id: number; item: string; status: string };
      return { text: `order ${order.id} for ${order.item}: ${order.status}`, usage, model: 'test' };
    },
  };
}

/** Two clerk subtasks that place orders, and a writer after them that uses no tools. */
export function orderPlan(subtasks = ['a', 'b']): Workflow {
  return {
    task: 'place the orders',
    roles: [
      { name: 'clerk', prompt: 'You place orders.', kind: 'llm', tools: ['create_order', 'get_order'] },
      { name: 'writer', prompt: 'You write.', kind: 'llm' },
    ],
    subtasks: [
      ...subtasks.map((id) => ({
        id,
        objective: `order ${id}`,
        agent: 'clerk',
        dependsOn: [],
        status: 'not started' as const,
        attempts: 0,
      })),
      {
        id: 'sum',
        objective: 'summarise',
        agent: 'writer',
        dependsOn: [...subtasks],
        status: 'not started' as const,
        attempts: 0,
      },
    ],
  };
}
