/**
 * `weft run --otel` in process against a real OTLP/HTTP receiver on 127.0.0.1: the decoded span tree of a sim run,
 * the service name, credentials in the URL (sent as Basic auth, never printed), the environment variable, a dead
 * collector (the run's exit code is unchanged), and the flags' mistakes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeOtelFlag } from '../../src/cli/otel.js';
import { stopTelemetry } from '../../src/llm/start-telemetry.js';
import { cli, tempHome } from './cli-harness.js';
import { deadPort, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await stopTelemetry();
  await receiver.close();
});

const SIM = 'sim:seed=3,tasks=5,latency=uniform(1,3)';
const NO_ENV = { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined };

function checkTree(spans: readonly ReceivedSpan[], runId: string): void {
  const roots = spans.filter((span) => span.parentSpanId === undefined);
  expect(roots.map((span) => span.name)).toEqual(['invoke_workflow']);
  const root = roots[0]!;
  expect(root.attributes['gen_ai.conversation.id']).toBe(runId);
  expect(root.attributes['weft.run.status']).toBe('completed');
  expect(root.serviceName).toBe('weft');
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const agents = spans.filter((span) => span.name.startsWith('invoke_agent '));
  expect(agents.length).toBeGreaterThanOrEqual(5);
  for (const agent of agents) expect(agent.parentSpanId).toBe(root.spanId);
  const chats = spans.filter((span) => span.name.startsWith('chat '));
  for (const chat of chats) {
    const parent = byId.get(chat.parentSpanId!)!;
    const purpose = chat.attributes['weft.call.purpose'];
    if (purpose === 'execute' || purpose === 'verify') {
      expect(parent.name).toMatch(/^invoke_agent /);
      expect(chat.attributes['weft.task.id']).toBe(parent.attributes['weft.task.id']);
      expect(chat.attributes['weft.attempt']).toBe(parent.attributes['weft.attempt']);
    } else expect(parent).toBe(root);
    expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT in OTLP
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeTypeOf('number');
  }
  expect(chats.some((chat) => chat.attributes['weft.call.purpose'] === 'plan')).toBe(true);
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
}

describe('weft run --otel', () => {
  it('exports the span tree of a sim run to the collector the flag names', async () => {
    const home = tempHome();
    const result = await cli(
      ['run', 'write a report', '--model', SIM, '--home', home, '--otel', receiver.url, '--json'],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout) as { runId: string; calls: number };
    expect(receiver.requests.every((request) => request.path === '/v1/traces')).toBe(true);
    checkTree(receiver.spans, document.runId);
    expect(receiver.spans.filter((span) => span.name.startsWith('chat '))).toHaveLength(document.calls);
    expect(result.stderr).toContain(`tracing to ${receiver.url}/v1/traces`);
    expect(JSON.stringify(receiver.spans)).not.toContain('write a report');
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT alone turns tracing on; OTEL_SERVICE_NAME names the service', async () => {
    const home = tempHome();
    const result = await cli(['run', 'write a report', '--model', SIM, '--home', home, '--otel-content', '--json'], {
      ...NO_ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'my-weft',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(receiver.spans.length).toBeGreaterThan(0);
    expect(new Set(receiver.spans.map((span) => span.serviceName))).toEqual(new Set(['my-weft']));
    const root = receiver.spans.find((span) => span.name === 'invoke_workflow')!;
    expect(root.attributes['weft.task']).toBe('write a report');
  });

  it('credentials in the URL go as Basic authentication and are never printed', async () => {
    const home = tempHome();
    const withCredentials = receiver.url.replace('http://', 'http://alice:hunter2@');
    const result = await cli(
      ['run', 'write a report', '--model', SIM, '--home', home, '--otel', withCredentials],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('alice:hunter2').toString('base64')}`,
    );
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  it("a dead collector neither hangs nor fails the run: the exit code is the run's, with one warning", async () => {
    const home = tempHome();
    const port = await deadPort();
    const result = await cli(
      [
        'run',
        'write a report',
        '--model',
        SIM,
        '--home',
        home,
        '--otel',
        `http://user:pw0rd@127.0.0.1:${port}`,
        '--json',
      ],
      // The bounded wait, shortened (OTel's standard variable) so that the test does not wait the default 5 s.
      { ...NO_ENV, OTEL_EXPORTER_OTLP_TIMEOUT: '300' },
    );
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { status: string }).status).toBe('completed');
    expect(result.stderr).toMatch(/traces not delivered to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
    expect(result.stderr).not.toContain('pw0rd');
  });

  it('a failed run still exports, its span an error; the exit code stays 1', async () => {
    const home = tempHome();
    const result = await cli(
      [
        'run',
        'write a report',
        '--model',
        'sim:seed=3,fail=1',
        '--strategy',
        'none',
        '--home',
        home,
        '--otel',
        receiver.url,
        '--json',
      ],
      NO_ENV,
    );
    expect(result.code).toBe(1);
    const root = receiver.spans.find((span) => span.name === 'invoke_workflow')!;
    expect(root.status.code).toBe(2); // STATUS_CODE_ERROR
  });

  it('mistakes: a URL that is not http(s), --otel-content without --otel', async () => {
    const home = tempHome();
    const bad = await cli(['run', 'x', '--model', SIM, '--home', home, '--otel', 'ftp://u:secretpw@host/'], NO_ENV);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--otel: .*http/);
    expect(bad.stderr).not.toContain('secretpw');
    const content = await cli(['run', 'x', '--model', SIM, '--home', home, '--otel-content'], NO_ENV);
    expect(content.code).toBe(2);
    expect(content.stderr).toContain('--otel-content');
  });

  it('weft resume takes --otel too (an unknown run: exit 2, tracing started and stopped)', async () => {
    const home = tempHome();
    const result = await cli(['resume', 'no-such-run', '--home', home, '--otel', receiver.url], NO_ENV);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`tracing to ${receiver.url}/v1/traces`);
  });

  it('a bare --otel does not swallow the task that follows it', () => {
    expect(normalizeOtelFlag(['run', '--otel', 'write a report'])).toEqual(['run', '--otel=', 'write a report']);
    expect(normalizeOtelFlag(['run', '--otel', 'http://h:4318', 't'])).toEqual(['run', '--otel', 'http://h:4318', 't']);
    expect(normalizeOtelFlag(['run', '--otel'])).toEqual(['run', '--otel=']);
    expect(normalizeOtelFlag(['run', '--', '--otel', 'x'])).toEqual(['run', '--', '--otel', 'x']);
  });
});
