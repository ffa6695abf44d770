/**
 * `weft serve` in-process, where it ends by itself: a bad --port or --host, and a port that is taken, are exit 2
 * with a message naming the flag (before anything listens). Serving until a signal is in test/long/serve-signals.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe('weft serve flags', () => {
  it.each(['abc', '-1', '65536', '80.5', '1e3', '', '99999999999'])(
    '--port %j is exit 2 naming --port',
    async (port) => {
      const result = await cli(['serve', '--port', port, '--home', tempHome()]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--port');
      expect(result.stderr).toContain('0 to 65535');
      expect(result.stdout).toBe('');
    },
  );

  it('--port given as JSON error with --json', async () => {
    const result = await cli(['serve', '--port', 'x', '--home', tempHome(), '--json']);
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stdout || result.stderr).error;
    expect(error.code).toBe('BAD_INPUT');
    expect(error.location.field).toBe('--port');
  });

  it('a blank --host is exit 2', async () => {
    const result = await cli(['serve', '--host', '  ', '--port', '0', '--home', tempHome()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--host');
  });

  it('a port in use is exit 2 with what to do, not a stack trace', async () => {
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const result = await cli(['serve', '--port', String(port), '--home', tempHome()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`);
    expect(result.stderr).toContain('--port');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toContain('token=');
  });

  it.each(['http://dash.example.com', 'dash.example.com:8443', 'dash.example.com/x', ''])(
    '--allowed-host %j is exit 2 naming --allowed-host',
    async (name) => {
      const result = await cli(['serve', '--allowed-host', name, '--port', '0', '--home', tempHome()]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--allowed-host takes a host name');
    },
  );

  it('a host that is not this machine is exit 2 naming --host', async () => {
    const result = await cli(['serve', '--host', '192.0.2.1', '--port', '0', '--home', tempHome()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--host');
    expect(result.stderr).toContain('192.0.2.1');
  });

  it.each(['short', 'has space in it and is long enough', 'é'.repeat(30), 'x'.repeat(257)])(
    'WEFT_DASHBOARD_TOKEN %j is exit 2 naming it, never echoing it',
    async (token) => {
      const result = await cli(['serve', '--port', '0', '--home', tempHome()], { WEFT_DASHBOARD_TOKEN: token });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('WEFT_DASHBOARD_TOKEN must be 24 to 256 characters');
      expect(result.stderr).not.toContain(token);
    },
  );
});
