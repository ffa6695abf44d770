/**
 * `weft serve` as a real child process: it prints its URL (text or --json), serves with the token, warns when
 * bound beyond loopback, and SIGINT or SIGTERM end it with exit 0 even while a live event stream is open.
 * In npm run test:long (two child processes through tsx: several seconds).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, tempHome } from '../cli/cli-harness.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** The status of GET /api/runs on 127.0.0.1:port sent with this Host header. */
function statusFor(port: number, host: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: '127.0.0.1', port, path: '/api/runs', headers: { Host: host, Authorization: `Bearer ${token}` } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

interface Served {
  readonly child: ChildProcess;
  readonly firstLine: Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

function serve(home: string, flags: string[], env: Record<string, string> = {}): Served {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--home', home, ...flags],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      // --json prints one document (several lines); text mode its URL line first.
      if (flags.includes('--json') ? stdout.trimEnd().endsWith('}') : stdout.includes('\n')) resolve(stdout);
    });
    child.once('exit', (code) => reject(new Error(`weft serve exited ${code} before printing: ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, firstLine, exited, stderr: () => stderr };
}

describe('weft serve, a real process', () => {
  it('text mode: prints the URL with its token, serves the page and API, and SIGINT while a stream is open is exit 0', async () => {
    const home = tempHome();
    const run = await cli(['run', 'Name a boat', '--model', 'sim:seed=1,tasks=3', '--home', home, '--json']);
    expect(run.code).toBe(0);
    const runId = (JSON.parse(run.stdout) as { runId: string }).runId;
    const served = serve(home, []);
    const line = await served.firstLine;
    const url = /weft dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    const { origin, searchParams } = new URL(url!);
    const token = searchParams.get('token')!;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(served.stderr()).not.toContain('warning');

    const first = await fetch(url!, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    expect((await fetch(`${origin}/api/runs`)).status).toBe(401);
    const listed = await fetch(`${origin}/api/runs`, { headers: { Authorization: `Bearer ${token}` } });
    expect(((await listed.json()) as { runs: { runId: string }[] }).runs.map((entry) => entry.runId)).toEqual([runId]);

    const stream = await fetch(`${origin}/api/runs/${runId}/events`, { headers: { Authorization: `Bearer ${token}` } });
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('"run-end"')) text += new TextDecoder().decode((await reader.read()).value);
    served.child.kill('SIGINT');
    expect(await served.exited).toEqual({ code: 0, signal: null });
    // Serve's own words: it has no work to keep, and one signal is enough.
    expect(served.stderr()).toContain('weft serve: stopping the dashboard');
    expect(served.stderr()).not.toMatch(/finished work is kept|again to quit/);
    await reader.cancel().catch(() => undefined);
  }, 120_000);

  it('--host 0.0.0.0 --json: one JSON document, a warning on stderr, --allowed-host, and SIGTERM is exit 0', async () => {
    const home = tempHome();
    const served = serve(home, ['--host', '0.0.0.0', '--json', '--allowed-host', 'dash.example.com']);
    const document = JSON.parse(await served.firstLine) as {
      url: string;
      host: string;
      port: number;
      token: string;
      store: string;
    };
    expect(document.host).toBe('0.0.0.0');
    expect(document.url).toBe(`http://127.0.0.1:${document.port}/?token=${document.token}`);
    expect(document.store).toContain(home);
    expect(served.stderr()).toContain('warning: serving on 0.0.0.0');
    // No store yet: the dashboard answers as an empty one and creates nothing.
    const listed = await fetch(`http://127.0.0.1:${document.port}/api/runs`, {
      headers: { Authorization: `Bearer ${document.token}` },
    });
    expect(await listed.json()).toEqual({ total: 0, offset: 0, runs: [] });
    // The Host header: the allowed name on any port, an IP address with the port (bound to every interface), and
    // no other name.
    expect(await statusFor(document.port, 'dash.example.com', document.token)).toBe(200);
    expect(await statusFor(document.port, `192.0.2.7:${document.port}`, document.token)).toBe(200);
    expect(await statusFor(document.port, `evil.example:${document.port}`, document.token)).toBe(421);
    // One SIGTERM, never a second: the process must end on its own.
    served.child.kill('SIGTERM');
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toContain('weft serve: stopping the dashboard (SIGTERM)');
    expect(served.stderr()).not.toMatch(/finished work is kept|again to quit/);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(home)).toEqual([]);
  }, 120_000);

  it('WEFT_DASHBOARD_TOKEN is the token: a restarted server accepts the cookie of the first', async () => {
    const home = tempHome();
    const token = 'a-chosen-token_0123456789.~';
    const first = serve(home, ['--json'], { WEFT_DASHBOARD_TOKEN: token });
    const document = JSON.parse(await first.firstLine) as { url: string; token: string };
    expect(document.token).toBe(token);
    const login = await fetch(document.url, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const second = serve(home, ['--json'], { WEFT_DASHBOARD_TOKEN: token });
    const again = JSON.parse(await second.firstLine) as { url: string };
    const { origin } = new URL(again.url);
    expect((await fetch(`${origin}/api/runs`, { headers: { cookie } })).status).toBe(200);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 120_000);
});
