/**
 * Local servers that answer every request with server-sent events, for the streaming tests of the providers and
 * of `weft chat`: `serve(handler)` starts one (its base URL back), and each test's servers are closed after it.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** Writes the events of one answer; `request` counts the server's requests from 0. */
export type SseHandler = (response: ServerResponse, request: number) => void;

/** Call at a test file's top level: the returned `serve` starts a server, closed after each test. */
export function sseServers(): (handler: SseHandler) => Promise<string> {
  const servers: Array<ReturnType<typeof createServer>> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async (handler) => {
    let count = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        handler(response, count++);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}

/** One chat-completions chunk as the server-sent event OpenAI writes. */
export function openAiChunk(content: string): string {
  const body = {
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'gpt-test',
    choices: [{ index: 0, delta: { content } }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}
