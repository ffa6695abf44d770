/**
 * Tracing on the commands besides `weft run`: `weft plan` (an `invoke_agent planner` span over its candidates' and
 * repairs' `chat` spans) and the MCP server's `weft_plan` and `weft_run` (each run its own `invoke_workflow` trace).
 * Spans are collected in process by the Node SDK with an in-memory exporter; one `weft plan --otel` goes to a real
 * OTLP/HTTP receiver.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { loadContext, loadModel, openStore } from '../../src/cli/context.js';
import { createWeftMcpServer } from '../../src/cli/mcp-server.js';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { cli, tempHome } from './cli-harness.js';
import { startOtlpReceiver } from './otlp-receiver.js';

/** A SpanExporter that keeps what it is given. */
function collector(): SpanExporter & { spans: ReadableSpan[] } {
  const spans: ReadableSpan[] = [];
  return {
    spans,
    export(batch, done) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
}

afterEach(async () => {
  await stopTelemetry();
});

const SIM = 'sim:seed=3,tasks=4';
const NO_ENV = { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined };

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('weft plan traced', () => {
  it('one invoke_agent planner span, a chat span per model call under it, totals matching --json', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const result = await cli(
      ['plan', 'the secret task text', '--model', SIM, '--candidates', '3', '--home', tempHome(), '--json'],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const document = JSON.parse(result.stdout) as {
      chosen: number;
      calls: number;
      tokens: { input: number; output: number };
    };
    const roots = exporter.spans.filter((span) => parentOf(span) === undefined);
    expect(roots.map((span) => span.name)).toEqual(['invoke_agent planner']);
    const root = roots[0]!;
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'planner',
      'weft.command': 'plan',
      'weft.candidates': 3,
      'weft.plan.chosen': document.chosen,
      'weft.calls': document.calls,
      'gen_ai.usage.input_tokens': document.tokens.input,
      'gen_ai.usage.output_tokens': document.tokens.output,
    });
    const chats = exporter.spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(document.calls);
    expect(document.calls).toBeGreaterThanOrEqual(3);
    for (const chat of chats) {
      expect(parentOf(chat)).toBe(root.spanContext().spanId);
      expect(chat.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(chat.attributes['gen_ai.provider.name']).toBe('sim');
    }
    expect(chats.map((chat) => chat.attributes['weft.call.purpose'])).toContain('plan');
    // No content without the opt-in.
    expect(JSON.stringify(exporter.spans.map((span) => span.attributes))).not.toContain('secret task');
  });

  it('a failed plan ends its span as an error; content (the task) only with the opt-in', async () => {
    const exporter = collector();
    await startTelemetry({ exporter, content: true });
    // A scripted model with no replies: planning fails.
    const home = tempHome();
    const script = join(home, 'none.json');
    writeFileSync(script, JSON.stringify({ replies: [] }));
    const result = await cli(['plan', 'the secret task text', '--model', `scripted:${script}`, '--home', home], NO_ENV);
    await stopTelemetry();
    expect(result.code).not.toBe(0);
    const root = exporter.spans.find((span) => span.name === 'invoke_agent planner');
    expect(root, result.stderr).toBeDefined();
    expect(root!.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(root!.attributes['error.type']).toBeTypeOf('string');
    expect(root!.attributes['weft.task']).toBe('the secret task text');
  });

  it('weft plan --otel exports to a real receiver and says where', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const result = await cli(
        ['plan', 'write a report', '--model', SIM, '--home', tempHome(), '--otel', receiver.url, '--format', 'json'],
        NO_ENV,
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`tracing to ${receiver.url}/v1/traces`);
      const names = receiver.spans.map((span) => span.name);
      expect(names).toContain('invoke_agent planner');
      expect(names.filter((name) => name.startsWith('chat ')).length).toBeGreaterThan(0);
      expect(new Set(receiver.spans.map((span) => span.traceId)).size).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('weft mcp traced', () => {
  it('weft_plan makes a planner span; each weft_run its own invoke_workflow trace', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const context = await loadContext({ home: tempHome() }, {});
    const model = await loadModel(SIM, context.config, {});
    const store = await openStore(context);
    const stop = new AbortController();
    const { server, settled } = await createWeftMcpServer({
      context,
      model,
      store,
      signal: stop.signal,
      log: () => {},
      version: 'test',
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
    try {
      const planned = await client.callTool({ name: 'weft_plan', arguments: { task: 'a report on tea' } });
      expect(planned.isError).toBeFalsy();
      const runIds: string[] = [];
      for (const task of ['a report on tea', 'a report on coffee']) {
        const ran = await client.callTool({ name: 'weft_run', arguments: { task, wait: true } });
        expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
        const text = (ran.content as { text: string }[])[0]!.text;
        runIds.push((JSON.parse(text) as { runId: string }).runId);
      }
    } finally {
      await client.close();
      stop.abort();
      await settled();
      await server.close();
      await store.close();
    }
    await stopTelemetry();
    const roots = exporter.spans.filter((span) => parentOf(span) === undefined);
    expect(roots.map((span) => span.name).sort()).toEqual([
      'invoke_agent planner',
      'invoke_workflow',
      'invoke_workflow',
    ]);
    expect(new Set(roots.map((span) => span.spanContext().traceId)).size).toBe(3);
    const planner = roots.find((span) => span.name === 'invoke_agent planner')!;
    const plannerChats = exporter.spans.filter(
      (span) => span.name.startsWith('chat ') && span.spanContext().traceId === planner.spanContext().traceId,
    );
    expect(plannerChats.length).toBe(planner.attributes['weft.calls']);
    expect(plannerChats.length).toBeGreaterThan(0);
    for (const run of roots.filter((span) => span.name === 'invoke_workflow')) {
      expect(run.attributes['weft.run.status']).toBe('completed');
      const inRun = exporter.spans.filter((span) => span.spanContext().traceId === run.spanContext().traceId);
      expect(inRun.filter((span) => span.name.startsWith('chat ')).length).toBe(run.attributes['weft.calls']);
    }
  });
});
