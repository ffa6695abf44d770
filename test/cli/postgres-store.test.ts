import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestPostgres } from '../store/postgres-server.js';
import { cli, tempHome } from './cli-harness.js';

const started = await startTestPostgres();
const server = 'server' in started ? started.server : undefined;
if (server === undefined)
  console.log(`CLI Postgres tests skipped: ${'skipReason' in started ? started.skipReason : ''}`);
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(server === undefined)('the CLI with --store postgres://…', () => {
  it('records a run in Postgres, and show, runs and WEFT_STORE read it back', async () => {
    const home = tempHome();
    // A schema of its own (`?schema=`), dropped afterwards, so the shared test database is left as it was.
    const schema = server!.freshSchema();
    onTestFinished(() => server!.dropSchema(schema));
    const url = `${server!.url}${server!.url.includes('?') ? '&' : '?'}schema=${schema}`;
    const run = await cli([
      'run',
      'write a short story in four parts',
      '--model',
      'sim:seed=4,tasks=4',
      '--home',
      home,
      '--store',
      url,
      '--json',
    ]);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout) as { runId: string; status: string };
    expect(document.status).toBe('completed');
    const show = await cli(['show', document.runId, '--home', home, '--store', url, '--json']);
    expect(JSON.parse(show.stdout)).toEqual(document);
    const runs = await cli(['runs', '--home', home, '--json'], { WEFT_STORE: url });
    expect((JSON.parse(runs.stdout) as { runs: { runId: string }[] }).runs.map((r) => r.runId)).toContain(
      document.runId,
    );
    expect((await server!.admin.query(`SELECT count(*)::int AS n FROM "${schema}".runs`)).rows[0]).toEqual({ n: 1 });
    // The SQLite store in the home knows nothing of it.
    const local = await cli(['show', document.runId, '--home', home]);
    expect(local.code).toBe(2);
  });

  it('keeps a chat with a procedure in Postgres: sessions and show-session read it, a resume goes on', async () => {
    const home = tempHome();
    const schema = server!.freshSchema();
    onTestFinished(() => server!.dropSchema(schema));
    const url = `${server!.url}${server!.url.includes('?') ? '&' : '?'}schema=${schema}`;
    const pdl = 'test/fixtures/chat/refund-chat.pdl.yaml';
    const chat = await cli(
      ['chat', pdl, '--model', 'sim:seed=1,latency=fixed(0)', '--home', home, '--store', url, '--json'],
      {},
      'I want a refund\n',
    );
    expect(chat.code, chat.stderr).toBe(0);
    const { sessionId } = JSON.parse(chat.stdout) as { sessionId: string };
    const resumed = await cli(
      ['chat', '--session', sessionId, '--home', home, '--store', url, '--json'],
      {},
      'email: ada@example.com, order_id: O-1\n',
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const shown = JSON.parse(
      (await cli(['show-session', sessionId, '--home', home, '--store', url, '--json'])).stdout,
    ) as {
      turns: number;
      totals: { toolCalls: number };
    };
    expect(shown).toMatchObject({ turns: 2, totals: { toolCalls: 3 } });
    const rows = await server!.admin.query(`SELECT count(*)::int AS n FROM "${schema}".session_events`);
    expect((rows.rows[0] as { n: number }).n).toBeGreaterThan(10);
    // The SQLite store in the home knows nothing of it.
    expect((await cli(['show-session', sessionId, '--home', home])).code).toBe(2);
  });

  it('an unreachable Postgres fails with a clear message and exit 2 or 1, never a hang', async () => {
    // A hang would run into the test's time-out.
    const result = await cli(['runs', '--home', tempHome(), '--store', 'postgres://weft:secret@127.0.0.1:1/none']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Cannot reach Postgres at/);
    expect(result.stderr).not.toContain('secret');
  });
});
