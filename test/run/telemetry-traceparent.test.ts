/**
 * The W3C traceparent a job carries to a worker (llm/telemetry.ts): what the active span gives, and what a worker
 * accepts from a queue: only a well-formed, valid traceparent becomes the parent; junk is ignored.
 */
import { spanCollector as collector } from './span-collector.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { activeTraceparent, traceAgent, withTraceparent } from '../../src/llm/telemetry.js';

afterEach(async () => {
  await stopTelemetry();
});

describe('traceparent', () => {
  it('is undefined without a recording span, and names the active span inside one', async () => {
    expect(activeTraceparent()).toBeUndefined();
    const exporter = collector();
    await startTelemetry({ exporter });
    expect(activeTraceparent()).toBeUndefined();
    const inside = await traceAgent({ agent: 'a' }, async () => activeTraceparent());
    await stopTelemetry();
    const span = exporter.spans[0]!;
    expect(inside).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  it('parents spans made under it; junk, all-zero ids and non-strings start traces of their own', async () => {
    const exporter = collector();
    await startTelemetry({ exporter });
    const parent = `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`;
    await withTraceparent(parent, () => traceAgent({ agent: 'child' }, async () => {}));
    const junk = [
      `00-${'0'.repeat(32)}-${'cd'.repeat(8)}-01`,
      `00-${'ab'.repeat(16)}-${'0'.repeat(16)}-01`,
      `ff-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
      `00-${'AB'.repeat(16)}-${'cd'.repeat(8)}-01`,
      `${parent}\n`,
      `${parent}-extra`,
      'x'.repeat(100_000),
      { traceId: 'ab'.repeat(16) },
      42,
      undefined,
    ];
    for (const value of junk) await withTraceparent(value, () => traceAgent({ agent: 'orphan' }, async () => {}));
    await stopTelemetry();
    const child = exporter.spans.find((span) => span.name === 'invoke_agent child')!;
    expect(child.spanContext().traceId).toBe('ab'.repeat(16));
    expect(child.parentSpanContext?.spanId).toBe('cd'.repeat(8));
    const orphans = exporter.spans.filter((span) => span.name === 'invoke_agent orphan');
    expect(orphans).toHaveLength(junk.length);
    for (const orphan of orphans) {
      expect(orphan.parentSpanContext).toBeUndefined();
      expect(orphan.spanContext().traceId).not.toBe('ab'.repeat(16));
    }
  });
});
