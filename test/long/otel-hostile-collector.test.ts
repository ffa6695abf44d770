/**
 * `weft run --otel` against collectors that misbehave: one whose error reason quotes the request back (its URL, with
 * a key in a query parameter of any name, and the Authorization header), one that never answers, one that
 * redirects elsewhere. The run's exit code is unchanged, the wait is bounded, and no credential is printed.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { stopTelemetry } from '../../src/llm/start-telemetry.js';
import { cli, tempHome } from '../cli/cli-harness.js';

const SIM = 'sim:seed=3,tasks=3';
// OTel's standard timeout variable, shortened: the bounded wait is what is tested, not its default length.
const ENV = {
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TIMEOUT: '300',
};

const servers: (Server | TcpServer)[] = [];
/** The silent collector's connections: ended here, since a server's close waits for them. */
const sockets: Socket[] = [];
afterEach(async () => {
  await stopTelemetry();
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function listen(server: Server | TcpServer): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A collector answering every export with `status`, its reason phrase quoting the request's URL and credentials. */
function echoingCollector(status: number): Server {
  return createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const headers = status === 302 ? { location: `http://elsewhere.invalid${request.url}` } : {};
      response.writeHead(status, `Refused ${request.url} from ${request.headers.authorization ?? 'nobody'}`, headers);
      response.end();
    });
  });
}

describe('weft run --otel and a misbehaving collector', () => {
  it('its error reason quoting the URL and the credentials is printed without them', async () => {
    const port = await listen(echoingCollector(500));
    const result = await cli(
      [
        'run',
        'write a report',
        '--model',
        SIM,
        '--home',
        tempHome(),
        '--json',
        '--otel',
        `http://KEYuser0:pw0rdX@127.0.0.1:${port}/?auth=T0kenValue`,
      ],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /traces not delivered to http:\/\/127\.0\.0\.1:\d+\/v1\/traces\?… \(\d+ spans\): Refused/,
    );
    for (const secret of ['KEYuser0', 'pw0rdX', 'T0kenValue', Buffer.from('KEYuser0:pw0rdX').toString('base64')])
      expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('a redirect is not followed: one warning, the exit code unchanged', async () => {
    const port = await listen(echoingCollector(302));
    const result = await cli(
      ['run', 'write a report', '--model', SIM, '--home', tempHome(), '--otel', `http://127.0.0.1:${port}`],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/traces not delivered/g)).toHaveLength(1);
  });

  it('one that accepts the connection and never answers: the flush gives up (bounded) and says so', async () => {
    const port = await listen(createTcpServer((socket) => sockets.push(socket)));
    const result = await cli(
      ['run', 'write a report', '--model', SIM, '--home', tempHome(), '--otel', `http://127.0.0.1:${port}`],
      ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `traces not delivered to http://127.0.0.1:${port}/v1/traces: no answer from the collector within 300 ms`,
    );
  });
});
