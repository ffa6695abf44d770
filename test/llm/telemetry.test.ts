/**
 * The span helpers with hostile content (telemetry.ts): huge prompts are cut, arguments that are not JSON (a cycle,
 * nesting deeper than the stack) do not throw, and failures record their message without a stack.
 */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { MAX_CONTENT_CHARS, startChatSpan, startToolSpan, telemetryProvider } from '../../src/llm/telemetry.js';

afterEach(async () => {
  await stopTelemetry();
});

async function collect(content: boolean, work: () => void): Promise<ReadableSpan[]> {
  const spans: ReadableSpan[] = [];
  const exporter: SpanExporter = {
    export: (batch, done) => {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  await startTelemetry({ exporter, content });
  work();
  await stopTelemetry();
  return spans;
}

describe('span helpers', () => {
  it('cut huge content, survive arguments that are not JSON, and record errors without a stack', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const spans = await collect(true, () => {
      const chat = startChatSpan({
        model: 'm',
        provider: 'sim',
        purpose: 'execute',
        call: {
          system: 's'.repeat(100_000),
          messages: [{ role: 'user', content: `\u0000\ud800${'x'.repeat(100_000)}` }],
        },
      });
      chat.run(() => undefined);
      chat.fail(Object.assign(new Error('provider said no'), { code: 'PROVIDER' }));
      startToolSpan({ name: 't', callId: 'c1', args: cyclic }).end({ ok: true, result: deep });
      startToolSpan({ name: 'n'.repeat(1_000_000), callId: 'i'.repeat(1_000_000), args: {} }).end({
        ok: false,
        error: 'no such tool',
        code: 'BAD_CALL',
      });
    });
    const chat = spans.find((span) => span.name === 'chat m')!;
    const input = JSON.parse(String(chat.attributes['gen_ai.input.messages'])) as { parts: { content: string }[] }[];
    const text = input[0]!.parts[0]!.content;
    expect(text.length).toBeLessThan(MAX_CONTENT_CHARS + 100);
    expect(text.endsWith('… [cut: 100002 characters]')).toBe(true);
    expect(String(chat.attributes['gen_ai.system_instructions']).length).toBeLessThan(MAX_CONTENT_CHARS + 100);
    expect(chat.status).toMatchObject({ code: 2, message: 'provider said no' });
    expect(chat.attributes['error.type']).toBe('PROVIDER');
    expect(JSON.stringify(chat.events)).not.toContain('    at ');
    const tool = spans.find((span) => span.name === 'execute_tool t')!;
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('"[not JSON]"');
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('"[not JSON]"');
    const runaway = spans.find((span) => span.attributes['error.type'] === 'BAD_CALL')!;
    expect(runaway.name.length).toBeLessThan(300);
    expect(String(runaway.attributes['gen_ai.tool.call.id']).length).toBeLessThan(300);
  });

  it('the provider of a model spec', () => {
    expect(telemetryProvider('openai:gpt-4o')).toBe('openai');
    expect(telemetryProvider('openai-compatible:http://u:k@h/v1#m')).toBe('openai');
    expect(telemetryProvider('Anthropic:claude')).toBe('anthropic');
    expect(telemetryProvider('sim:seed=1')).toBe('sim');
    expect(telemetryProvider('nonsense')).toBe('_OTHER');
  });
});
