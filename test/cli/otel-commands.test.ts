/**
 * Tracing on the commands besides `weft run`: `weft plan` (an `invoke_agent planner` span over its candidates' and
 * repairs' `chat` spans) and the MCP server's `weft_plan` and `weft_run` (each run its own `invoke_workflow` trace).
 * Spans are collected in process by the Node SDK with an in-memory exporter; one `weft plan --otel` goes to a real
 * OTLP/HTTP receiver.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { spanCollector as collector } from '../run/span-collector.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { GOLD_DIR } from '../eval/gold-path.js';
import { CHAT_MODEL, CHAT_PDL } from './chat-harness.js';
import { cli, tempHome } from './cli-harness.js';
import { startOtlpReceiver } from './otlp-receiver.js';
import { startMcp } from '../mcp/mcp-harness.js';

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
    // The server's spans go to the exporter registered above.
    const { client, close } = await startMcp({ model: SIM });
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
      await close();
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

const W = 'test/fixtures/workflows';
const REFERENCE = `${W}/sum-to-n.workflow.json`;

/** The one root span, and every span of the collector in its trace by parent. */
function tree(spans: readonly ReadableSpan[]) {
  const roots = spans.filter((span) => parentOf(span) === undefined);
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  const children = (span: ReadableSpan) => spans.filter((other) => parentOf(other) === span.spanContext().spanId);
  return { root, children };
}

describe('weft solve and weft distill traced', () => {
  it('solve: invoke_agent solver over a chat span per call and an execute_tool span per tool call', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const result = await cli(
      [
        'solve',
        'Sum the numbers from 1 to n',
        '--tools',
        `${W}/tools.yaml`,
        '--input',
        '{"n":3}',
        '--model',
        `sim:reference=${REFERENCE}`,
        '--expected',
        '6',
        '--home',
        tempHome(),
        '--json',
      ],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const document = JSON.parse(result.stdout) as { traceId: string; calls: unknown[]; usage: { calls: number } };
    const { root, children } = tree(exporter.spans);
    expect(root.name).toBe('invoke_agent solver');
    expect(root.attributes).toMatchObject({
      'weft.command': 'solve',
      'weft.trace.id': document.traceId,
      'weft.solve.success': true,
      'weft.calls': document.usage.calls,
    });
    const chats = exporter.spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(document.usage.calls);
    for (const chat of chats) expect(chat.attributes['weft.call.purpose']).toBe('solve');
    const tools = exporter.spans.filter((span) => span.name.startsWith('execute_tool '));
    expect(tools.map((span) => span.attributes['gen_ai.tool.name'])).toEqual(
      (document.calls as { tool: string }[]).map((call) => call.tool),
    );
    // Everything is inside the solver's span.
    expect(children(root).length).toBe(exporter.spans.length - 1);
  });

  it('distill: invoke_agent summarizer over its chat and graph-tool spans', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = tempHome();
    const result = await cli(
      [
        'distill',
        '--traces',
        'test/fixtures/distill/sum-to-n.traces.jsonl',
        '--tools',
        `${W}/tools.yaml`,
        '--out',
        join(home, 'workflow.json'),
        '--home',
        home,
        '--model',
        `sim:reference=${REFERENCE}`,
        '--json',
      ],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const document = JSON.parse(result.stdout) as { steps: number; graphCalls: number };
    const { root } = tree(exporter.spans);
    expect(root.name).toBe('invoke_agent summarizer');
    expect(root.attributes).toMatchObject({
      'weft.command': 'distill',
      'weft.distill.finished': true,
      'weft.calls': document.steps,
    });
    expect(exporter.spans.filter((span) => span.name.startsWith('chat '))).toHaveLength(document.steps);
    expect(exporter.spans.filter((span) => span.name.startsWith('execute_tool '))).toHaveLength(document.graphCalls);
    for (const span of exporter.spans) expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
  });
});

describe('weft chat traced', () => {
  it('each bot turn is an invoke_agent span of its own trace, its chat spans inside, tied by the session id', async () => {
    const exporter = collector();
    await startTelemetry({ exporter, content: true });
    const home = tempHome();
    const result = await cli(
      ['chat', CHAT_PDL, '--model', CHAT_MODEL, '--home', home, '--json'],
      { ...NO_ENV, WEFT_TEST_API_LOG: join(home, 'api.jsonl') },
      'I want a refund\nemail: ada@example.com, order_id: O-7\n',
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const document = JSON.parse(result.stdout) as { sessionId: string; turns: { turn: number }[] };
    const roots = exporter.spans.filter((span) => parentOf(span) === undefined);
    expect(roots).toHaveLength(document.turns.length);
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((span) => span.spanContext().traceId)).size).toBe(2);
    for (const [i, root] of roots.entries()) {
      expect(root.name).toMatch(/^invoke_agent /);
      expect(root.attributes).toMatchObject({
        'weft.command': 'chat',
        'gen_ai.conversation.id': document.sessionId,
        'weft.turn': document.turns[i]!.turn,
      });
      const chats = exporter.spans.filter(
        (span) => span.name.startsWith('chat ') && span.spanContext().traceId === root.spanContext().traceId,
      );
      expect(chats.length).toBeGreaterThan(0);
      for (const chat of chats) expect(chat.attributes['weft.call.purpose']).toBe('converse');
    }
    // The APIs the bot called, one execute_tool span each, inside the turns.
    const tools = exporter.spans.filter((span) => span.name.startsWith('execute_tool '));
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools)
      expect(roots.map((root) => root.spanContext().traceId)).toContain(tool.spanContext().traceId);
    // With the opt-in, each turn carries the user's message.
    expect(roots.map((span) => span.attributes['weft.user.message'])).toEqual([
      'I want a refund',
      'email: ada@example.com, order_id: O-7',
    ]);
  });
});

describe('weft team traced', () => {
  const teamFile = (dir: string) => {
    const file = join(dir, 'team.yaml');
    writeFileSync(
      file,
      'name: panel\nagents:\n  - name: alice\n    prompt: You are Alice.\n  - name: bob\n    prompt: You are Bob.\n  - name: carol\n    prompt: You are Carol.\n',
    );
    return file;
  };

  it('weft team: invoke_workflow, an invoke_agent span per agent step, every call a chat span', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = tempHome();
    const result = await cli(
      ['team', 'Pick a letter: a or b?', '--team', teamFile(home), '--model', 'sim:seed=2', '--home', home, '--json'],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const document = JSON.parse(result.stdout) as { calls: number; layers: { agent: string; step: number }[][] };
    const { root, children } = tree(exporter.spans);
    expect(root.name).toBe('invoke_workflow');
    expect(root.attributes).toMatchObject({
      'weft.command': 'team',
      'weft.team': 'panel',
      'weft.calls': document.calls,
    });
    const steps = children(root).filter((span) => span.name.startsWith('invoke_agent '));
    expect(
      steps.map((span) => [span.attributes['gen_ai.agent.name'], span.attributes['weft.team.step']]).sort(),
    ).toEqual(
      document.layers
        .flat()
        .map((node) => [node.agent, node.step])
        .sort(),
    );
    expect(exporter.spans.filter((span) => span.name.startsWith('chat '))).toHaveLength(document.calls);
    // An agent's calls are inside its step's span; the ranker's (if any) directly under the workflow.
    for (const chat of exporter.spans.filter((span) => span.name.startsWith('chat ')))
      expect([root, ...steps].map((span) => span.spanContext().spanId)).toContain(parentOf(chat));
  });

  it('weft team eval: one invoke_workflow over every item', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = tempHome();
    const data = join(home, 'data.jsonl');
    writeFileSync(
      data,
      '{"id":"q1","question":"a or b?","choices":["a","b"],"answer":"A"}\n{"id":"q2","question":"c or d?","choices":["c","d"],"answer":"B"}\n',
    );
    const result = await cli(
      ['team', 'eval', '--team', teamFile(home), '--data', data, '--model', 'sim:seed=2', '--home', home, '--json'],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const { root } = tree(exporter.spans);
    expect(root.attributes).toMatchObject({ 'weft.command': 'team eval', 'weft.items': 2 });
    expect(exporter.spans.filter((span) => span.name.startsWith('invoke_agent ')).length).toBeGreaterThanOrEqual(6);
    for (const span of exporter.spans) expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
  });
});

describe('weft simulate traced', () => {
  it('one invoke_workflow over the sessions: the bot, user and judge calls and the API calls inside', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = tempHome();
    const result = await cli(
      [
        'simulate',
        'test/fixtures/dialog/refund.pdl.yaml',
        '--profiles',
        'test/fixtures/dialog/refund-profiles.jsonl',
        '--model',
        'sim:seed=1',
        '--user-model',
        'sim:seed=2',
        '--judge',
        'sim:seed=3',
        '--home',
        home,
        '--json',
      ],
      { ...NO_ENV, WEFT_TEST_API_LOG: join(home, 'api.jsonl') },
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const { root } = tree(exporter.spans);
    expect(root.name).toBe('invoke_workflow');
    expect(root.attributes).toMatchObject({
      'weft.command': 'simulate',
      'weft.procedure': 'Refund',
      'weft.sessions': 3,
    });
    const purposes = new Set(
      exporter.spans
        .filter((span) => span.name.startsWith('chat '))
        .map((span) => span.attributes['weft.call.purpose']),
    );
    expect([...purposes].sort()).toEqual(['converse', 'judge', 'simulate-user']);
    expect(exporter.spans.some((span) => span.name.startsWith('execute_tool '))).toBe(true);
    for (const span of exporter.spans) expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
  });
});

describe('weft distill eval traced', () => {
  it('one invoke_workflow over the suite: the solve and distill stages inside', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const result = await cli(
      [
        'distill',
        'eval',
        '--suite',
        'examples/distill-suite',
        '--task',
        'gcd',
        '--variant',
        'es-pe',
        '--model',
        'sim:seed=1',
        '--home',
        tempHome(),
        '--json',
      ],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const { root } = tree(exporter.spans);
    expect(root.name).toBe('invoke_workflow');
    expect(root.attributes).toMatchObject({
      'weft.command': 'distill eval',
      'weft.tasks': 1,
      'weft.variants': 'es-pe',
    });
    const purposes = new Set(
      exporter.spans
        .filter((span) => span.name.startsWith('chat '))
        .map((span) => span.attributes['weft.call.purpose']),
    );
    expect([...purposes].sort()).toEqual(['distill', 'solve']);
    for (const span of exporter.spans) expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
  });
});

describe('weft bench worfbench traced', () => {
  it('one invoke_workflow over the records, a chat span per planning call', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = tempHome();
    const record = (JSON.parse(readFileSync(join(GOLD_DIR, 'wikihow.json'), 'utf8')) as unknown[]).slice(0, 2);
    const data = join(home, 'gold.json');
    writeFileSync(data, JSON.stringify(record));
    const result = await cli(
      ['bench', 'worfbench', '--data', data, '--model', 'sim:seed=1', '--home', home, '--json'],
      NO_ENV,
    );
    expect(result.code, result.stderr).toBe(0);
    await stopTelemetry();
    const document = JSON.parse(result.stdout) as { calls: number };
    const { root } = tree(exporter.spans);
    expect(root.attributes).toMatchObject({ 'weft.command': 'bench worfbench', 'weft.items': 2 });
    expect(exporter.spans.filter((span) => span.name.startsWith('chat '))).toHaveLength(document.calls);
    expect(document.calls).toBeGreaterThan(0);
  });
});
