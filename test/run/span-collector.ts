/** A SpanExporter that keeps what it is given (the SDK's InMemorySpanExporter forgets it on shutdown). */
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';

export function spanCollector(): SpanExporter & { spans: ReadableSpan[] } {
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
