/**
 * An OpenAI-compatible server on 127.0.0.1 that answers every chat completion with a recorded fixture
 * (test/fixtures/http), and keeps what it was sent.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadFixture } from '../llm/providers/replay-fetch.js';

export interface FakeOpenAIServer {
  readonly port: number;
  readonly requests: Array<{ readonly headers: IncomingHttpHeaders; readonly body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function fakeOpenAIServer(fixture: string): Promise<FakeOpenAIServer> {
  const { response } = loadFixture(fixture);
  const requests: FakeOpenAIServer['requests'] = [];
  const server = createServer((request, reply) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      requests.push({
        headers: request.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      });
      reply.writeHead(response.status, { 'content-type': 'application/json', ...(response.headers ?? {}) });
      reply.end(JSON.stringify(response.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
