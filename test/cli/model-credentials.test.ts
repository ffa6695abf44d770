/**
 * A real provider against a fake OpenAI-compatible server on 127.0.0.1: pricing by the spec's model when the
 * server names another (llama.cpp reports its file path), and a key in the base URL never printed or stored.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEvents } from '../../src/run/run-events.js';
import { openRunStore } from '../../src/store/open-store.js';
import { cli, tempHome } from './cli-harness.js';
import { fakeOpenAIServer, type FakeOpenAIServer } from './fake-openai-server.js';

const NO_KEYS = {
  WEFT_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
  WEFT_MODEL: undefined,
  WEFT_HOME: undefined,
  WEFT_STORE: undefined,
};
const SECRET = 'sk-live-7f3a9c1e5b';

function writePlan(home: string): string {
  const plan = join(home, 'plan.json');
  const subtask = (id: string, dependsOn: string[]) => ({
    id,
    objective: `Write part ${id}`,
    agent: 'writer',
    dependsOn,
  });
  writeFileSync(
    plan,
    JSON.stringify({
      task: 'Write three parts',
      subtasks: [subtask('a', []), subtask('b', ['a']), subtask('c', ['b'])],
    }),
  );
  return plan;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('weft run against an OpenAI-compatible server', () => {
  let server: FakeOpenAIServer;
  let home: string;
  beforeEach(async () => {
    server = await fakeOpenAIServer('llama-cpp/chat-completion');
    home = tempHome();
  });
  afterEach(async () => {
    await server.close();
  });

  it("prices calls by the spec's model when llama.cpp names its file, so --max-cost fires; events record the spec's model", async () => {
    writeFileSync(join(home, 'config.yaml'), 'prices:\n  mymodel: { inputPerMillion: 1000, outputPerMillion: 1000 }\n');
    const spec = `openai-compatible:http://127.0.0.1:${server.port}/v1#mymodel`;
    const result = await cli(
      ['run', '--plan', writePlan(home), '--model', spec, '--no-verify', '--max-cost', '1', '--home', home, '--json'],
      NO_KEYS,
    );
    const document = JSON.parse(result.stdout) as { runId: string; status: string; calls: number; costUsd: number };
    // 800 input + 1200 output tokens at $1000 per million each: $2 for the first call, over the $1 budget.
    expect(document.costUsd).toBeCloseTo(2, 6);
    expect(document.calls).toBe(1);
    expect(document.status).not.toBe('completed');
    expect(result.code).toBe(1);
    const store = await openRunStore({ home });
    try {
      const events = await runEvents(store, document.runId);
      expect(events.flatMap((event) => (event.type === 'model-call' ? [event.model] : []))).toEqual(['mymodel']);
      expect(events.some((event) => event.type === 'budget-stop')).toBe(true);
    } finally {
      await store.close();
    }
    expect(server.requests[0]?.body['model']).toBe('mymodel');
  });

  it("never prints or stores a key embedded in the base URL, and sends it as the URL's credentials", async () => {
    const spec = `openai-compatible:http://weft:${SECRET}@127.0.0.1:${server.port}/v1#mymodel`;
    const run = await cli(['run', '--plan', writePlan(home), '--model', spec, '--no-verify', '--home', home], NO_KEYS);
    expect(run.stderr).toContain(`run `);
    expect(run.code).toBe(0);
    const runId = /run (\S+): completed/.exec(run.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    const outputs = [
      run,
      await cli(['run', '--plan', writePlan(home), '--model', spec, '--no-verify', '--home', home, '--json'], NO_KEYS),
      await cli(['show', runId, '--home', home], NO_KEYS),
      await cli(['show', runId, '--home', home, '--json'], NO_KEYS),
      await cli(['runs', '--home', home], NO_KEYS),
      await cli(['runs', '--home', home, '--json'], NO_KEYS),
      // A spec with a mistake is echoed in the error, without its key.
      await cli(
        ['run', 'x', '--model', `openai-compatible:http://weft:${SECRET}@127.0.0.1:${server.port}/v1`, '--home', home],
        NO_KEYS,
      ),
      await cli(['resume', runId, '--home', home], NO_KEYS),
    ];
    expect(outputs[1]?.code).toBe(0);
    expect(outputs[6]?.code).toBe(2);
    expect(outputs[6]?.stderr).toContain('openai-compatible:http://weft@127.0.0.1');
    // Resuming needs the spec again: its key was not stored.
    expect(outputs[7]?.stderr).toContain('--model');
    for (const output of outputs) {
      expect(output.stdout).not.toContain(SECRET);
      expect(output.stderr).not.toContain(SECRET);
    }
    const stored = filesUnder(home);
    expect(stored.some((file) => file.endsWith('report.md'))).toBe(true);
    for (const file of stored) expect(readFileSync(file).includes(SECRET), file).toBe(false);
    // The server was sent the URL's credentials, as HTTP Basic authentication.
    expect(server.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from(`weft:${SECRET}`).toString('base64')}`);
  });
});
