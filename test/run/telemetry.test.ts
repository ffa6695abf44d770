/**
 * OpenTelemetry spans of a run (llm/telemetry.ts), collected in process by the Node SDK registered through
 * startTelemetry with an in-memory exporter: the span tree of a sim run with parallel subtasks and a tool-using
 * role, the attributes against the run's own `call` events, and content only when opted in.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { spanCollector as collector } from './span-collector.js';
import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseWorkflow } from '../../src/graph/index.js';
import type { Workflow } from '../../src/graph/workflow.js';
import { loadScriptedModel } from '../../src/llm/scripted-model.js';
import { defaultRoleKinds } from '../../src/role-kinds.js';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { Tool } from '../../src/tools/tool.js';
import { runEvents } from '../../src/run/run-events.js';

afterEach(async () => {
  await stopTelemetry();
});

const lookup: Tool = {
  name: 'lookup',
  description: 'Looks a word up.',
  inputSchema: {
    type: 'object',
    properties: { word: { type: 'string' }, token: { type: 'string' } },
    required: ['word', 'token'],
  },
  secretArgs: ['token'],
  idempotent: true,
  source: 'test',
  call: async (args) => ({ meaning: `the meaning of ${(args as { word: string }).word}` }),
};

/** Four parallel subtasks (one of them calls tools), and a writer after them. */
function plan(): Workflow {
  const parallel = ['a', 'b', 'c', 'd'];
  return {
    task: 'the secret task text',
    roles: [
      { name: 'researcher', prompt: 'You research.', kind: 'llm' },
      { name: 'librarian', prompt: 'You look words up.', kind: 'llm', tools: ['lookup'] },
      { name: 'writer', prompt: 'You write.', kind: 'llm' },
    ],
    subtasks: [
      ...parallel.map((id) => ({
        id,
        objective: `part ${id}`,
        agent: id === 'd' ? 'librarian' : 'researcher',
        dependsOn: [],
        status: 'not started' as const,
        attempts: 0,
      })),
      {
        id: 'sum',
        objective: 'summarise',
        agent: 'writer',
        dependsOn: parallel,
        status: 'not started' as const,
        attempts: 0,
      },
    ],
  };
}

// Real (small) latencies, so that the parallel attempts' calls interleave.
const SIM = 'sim:seed=5,latency=uniform(1,4),toolcalls=2';

async function tracedRun(options: { content?: boolean; model?: string; plan?: boolean } = {}) {
  const exporter = collector();
  await startTelemetry({ exporter, ...(options.content !== undefined ? { content: options.content } : {}) });
  const home = mkdtempSync(join(tmpdir(), 'weft-otel-'));
  const store = await openRunStore({ home });
  const result = await runTask({
    task: 'the secret task text',
    ...(options.plan === false ? {} : { plan: plan() }),
    model: await createModel(options.model ?? SIM),
    store,
    home,
    tools: { available: [lookup] },
  });
  const events = await runEvents(store, result.runId);
  await store.close();
  const stopped = await stopTelemetry();
  return { result, events, spans: exporter.spans, stopped, home };
}

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('OpenTelemetry spans of a run', () => {
  it('one invoke_workflow root; an invoke_agent child per attempt; chat and execute_tool under the right parents', async () => {
    const { result, events, spans, stopped } = await tracedRun();
    expect(result.status).toBe('completed');
    expect(stopped).toEqual({ exported: spans.length, failed: 0 });

    const roots = spans.filter((span) => parentOf(span) === undefined);
    expect(roots.map((span) => span.name)).toEqual(['invoke_workflow']);
    const root = roots[0]!;
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': result.runId,
      'weft.run.id': result.runId,
      'weft.run.status': 'completed',
      'weft.calls': result.calls,
      'gen_ai.usage.input_tokens': result.tokens.input,
      'gen_ai.usage.output_tokens': result.tokens.output,
    });
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([root.spanContext().traceId]));

    // One invoke_agent per attempt-start event, each a child of the run.
    const agents = spans.filter((span) => span.name.startsWith('invoke_agent '));
    const starts = events.filter((event) => event.type === 'task-start');
    expect(agents).toHaveLength(starts.length);
    for (const agent of agents) expect(parentOf(agent)).toBe(idOf(root));
    const agentOf = new Map(
      agents.map((span) => [`${span.attributes['weft.task.id']}#${span.attributes['weft.attempt']}`, span]),
    );
    expect(agentOf.get('d#1')?.name).toBe('invoke_agent librarian');
    expect(agentOf.get('d#1')?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'librarian',
      'weft.verdict': 'accept',
    });

    // A chat span per call event, with the same tokens and cost, under its attempt (execute/verify) or the run.
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    const calls = events.filter((event) => event.type === 'model-call');
    expect(chats).toHaveLength(calls.length);
    for (const call of calls) {
      const matching = chats.filter(
        (span) =>
          span.attributes['weft.call.purpose'] === call.purpose &&
          span.attributes['weft.task.id'] === call.taskId &&
          span.attributes['gen_ai.usage.input_tokens'] === call.inputTokens &&
          span.attributes['gen_ai.usage.output_tokens'] === call.outputTokens,
      );
      expect(matching.length, `a chat span for ${JSON.stringify(call)}`).toBeGreaterThan(0);
      for (const span of matching) {
        expect(span.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'sim',
          'gen_ai.request.model': 'sim',
          'gen_ai.response.model': call.model,
          'weft.cost_usd': call.costUsd,
        });
        const expectedParent = call.taskId !== undefined ? agentOf.get(`${call.taskId}#${call.attempt}`) : root;
        expect(parentOf(span)).toBe(idOf(expectedParent!));
      }
    }

    // Tool calls: one execute_tool per tool-call event, under d's attempt, with the call's id.
    const tools = spans.filter((span) => span.name.startsWith('execute_tool '));
    const toolCalls = events.filter((event) => event.type === 'tool-call');
    expect(toolCalls.length).toBeGreaterThan(0);
    expect(tools.map((span) => span.attributes['gen_ai.tool.call.id']).sort()).toEqual(
      toolCalls.map((event) => event.callId).sort(),
    );
    for (const span of tools) {
      expect(span.name).toBe('execute_tool lookup');
      expect(span.kind).toBe(0); // SpanKind.INTERNAL
      expect(span.attributes['gen_ai.tool.name']).toBe('lookup');
      expect(parentOf(span)).toBe(idOf(agentOf.get('d#1')!));
    }

    // No content unless opted in: no prompts, replies, tool arguments or results, no task text anywhere.
    const everything = JSON.stringify(spans.map((span) => span.attributes));
    for (const key of [
      'weft.task',
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.system_instructions',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ])
      expect(everything).not.toContain(`"${key}"`);
    expect(everything).not.toContain('secret task text');
    expect(everything).not.toContain('meaning of');
  });

  it('content when opted in: prompts, replies, tool arguments (secret ones redacted) and results', async () => {
    const { spans, events } = await tracedRun({ content: true });
    const root = spans.find((span) => span.name === 'invoke_workflow')!;
    expect(root.attributes['weft.task']).toBe('the secret task text');
    const execute = spans.find(
      (span) => span.name.startsWith('chat ') && span.attributes['weft.call.purpose'] === 'execute',
    )!;
    const input = JSON.parse(String(execute.attributes['gen_ai.input.messages'])) as { role: string }[];
    expect(input[0]?.role).toBe('user');
    expect(String(execute.attributes['gen_ai.system_instructions'])).toContain('You ');
    expect(JSON.parse(String(execute.attributes['gen_ai.output.messages']))[0].role).toBe('assistant');

    const tool = spans.find((span) => span.name === 'execute_tool lookup')!;
    const args = JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments'])) as Record<string, unknown>;
    expect(args.token).toBe('[redacted]');
    expect(String(tool.attributes['gen_ai.tool.call.result'])).toContain('meaning of');
    // The secret values the sim drew never appear, in tool spans or in later prompts that quote the calls.
    const secrets = events.flatMap((event) =>
      event.type === 'model-call' && event.toolCalls
        ? event.toolCalls.map((call) => (call.args as { token?: string }).token)
        : [],
    );
    expect(secrets.every((secret) => secret === '[redacted]')).toBe(true);
    const everything = JSON.stringify(spans.map((span) => span.attributes));
    expect(everything).not.toMatch(/"token\\?":\s*\\?"(?!\[redacted\])/);
  });

  it('a failed run ends its span with an error status; failed calls are errors too', async () => {
    const { result, spans } = await tracedRun({ model: 'sim:seed=1,error=1', plan: true });
    expect(result.status).toBe('failed');
    const root = spans.find((span) => span.name === 'invoke_workflow')!;
    expect(root.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(root.attributes['weft.run.status']).toBe('failed');
    const failedChats = spans.filter((span) => span.name.startsWith('chat ') && span.status.code === 2);
    expect(failedChats.length).toBeGreaterThan(0);
    expect(failedChats[0]!.attributes['error.type']).toBeTypeOf('string');
  });

  it("a planned run: the planner's calls are children of the run span", async () => {
    const { result, spans, events } = await tracedRun({ plan: false });
    expect(result.status).toBe('completed');
    const root = spans.find((span) => span.name === 'invoke_workflow')!;
    const planCalls = spans.filter((span) => span.attributes['weft.call.purpose'] === 'plan');
    expect(planCalls.length).toBe(
      events.filter((event) => event.type === 'model-call' && event.purpose === 'plan').length,
    );
    expect(planCalls.length).toBeGreaterThan(0);
    for (const span of planCalls) expect(parentOf(span)).toBe(idOf(root));
  });

  it("a team role's agents: their chat spans are children of the team subtask's attempt", async () => {
    // The scenario of test/run/team-role.test.ts: subtask `days` is answered by a four-agent team.
    const example = resolve('examples/team-workflow');
    const planFile = join(example, 'plan.json');
    const parsed = parseWorkflow(await readFile(planFile, 'utf8'), { file: planFile });
    if (!parsed.ok) throw new Error('bad example plan');
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = mkdtempSync(join(tmpdir(), 'weft-otel-'));
    const store = await openRunStore({ home });
    const result = await runTask({
      task: parsed.workflow.task,
      plan: parsed.workflow,
      planFile,
      model: await loadScriptedModel(join(example, 'replies.json')),
      store,
      home,
      roles: { kinds: defaultRoleKinds() },
    });
    await store.close();
    await stopTelemetry();
    expect(result.status).toBe('completed');
    const days = exporter.spans.find(
      (span) => span.name.startsWith('invoke_agent ') && span.attributes['weft.task.id'] === 'days',
    )!;
    expect(days.attributes['weft.role.kind']).toBe('team');
    const answers = exporter.spans.filter((span) => span.attributes['weft.call.purpose'] === 'answer');
    expect(answers).toHaveLength(8);
    for (const span of answers) expect(parentOf(span)).toBe(idOf(days));
  });

  it('a resumed run gets a new invoke_workflow span (a new trace), marked resumed', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const home = mkdtempSync(join(tmpdir(), 'weft-otel-'));
    const store = await openRunStore({ home });
    const controller = new AbortController();
    const first = await runTask({
      task: 'the secret task text',
      plan: plan(),
      model: await createModel(SIM),
      store,
      home,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'task-end') controller.abort();
      },
      tools: { available: [lookup] },
    });
    expect(first.status).toBe('cancelled');
    const resumed = await resumeRun({
      runId: first.runId,
      model: await createModel(SIM),
      store,
      home,
      tools: { available: [lookup] },
    });
    expect(resumed.status).toBe('completed');
    await store.close();
    await stopTelemetry();
    const roots = exporter.spans.filter((span) => span.name === 'invoke_workflow');
    expect(roots.map((span) => span.attributes['weft.run.status'])).toEqual(['cancelled', 'completed']);
    expect(roots[1]!.attributes['weft.run.resumed']).toBe(true);
    expect(roots[0]!.attributes['gen_ai.conversation.id']).toBe(roots[1]!.attributes['gen_ai.conversation.id']);
    expect(roots[0]!.spanContext().traceId).not.toBe(roots[1]!.spanContext().traceId);
    expect(roots[0]!.status.code).not.toBe(2);
  });

  it('without a registered SDK, a run makes no spans and works as before', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-otel-'));
    const store = await openRunStore({ home });
    const result = await runTask({
      task: 't',
      plan: plan(),
      model: await createModel(SIM),
      store,
      home,
      tools: { available: [lookup] },
    });
    await store.close();
    expect(result.status).toBe('completed');
  });
});
