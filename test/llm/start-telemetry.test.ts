/**
 * Registering the OpenTelemetry SDK (start-telemetry.ts): the OTLP target a URL gives (credentials moved to a header,
 * never shown), the missing optional package, one registration at a time, and an application's own provider.
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { isWeftError } from '../../src/errors.js';
import { OTEL_INSTALL_HINT, otlpTarget, startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { setTelemetryContent, telemetryCapturesContent } from '../../src/llm/telemetry.js';

const noExporter: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };

afterEach(async () => {
  await stopTelemetry();
  setTelemetryContent(undefined);
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('otlpTarget', () => {
  it('adds /v1/traces to a base URL, keeps an exact one, and moves credentials into Basic authentication', () => {
    expect(otlpTarget('http://127.0.0.1:4318').url).toBe('http://127.0.0.1:4318/v1/traces');
    expect(otlpTarget('https://collector.example/otlp/').url).toBe('https://collector.example/otlp/v1/traces');
    expect(otlpTarget('http://h:4318/v1/traces').url).toBe('http://h:4318/v1/traces');
    expect(otlpTarget('http://h/custom/path', { exact: true }).url).toBe('http://h/custom/path');
    const target = otlpTarget('http://al%40ce:p%3Ass@h:4318?api_key=k3y');
    expect(target.headers.Authorization).toBe(`Basic ${Buffer.from('al@ce:p:ss').toString('base64')}`);
    expect(target.url).toBe('http://h:4318/v1/traces?api_key=k3y');
    expect(target.display).toBe('http://h:4318/v1/traces?…');
    expect(target.secrets).toEqual(expect.arrayContaining(['p:ss', 'k3y']));
  });

  it('refuses what is not an http(s) URL, naming the field and never the password', () => {
    for (const bad of ['not a url', 'grpc://u:hunter2@h:4317', 'file:///etc/passwd']) {
      let error: unknown;
      try {
        otlpTarget(bad, { field: '--otel' });
      } catch (caught) {
        error = caught;
      }
      expect(isWeftError(error) && error.code).toBe('BAD_INPUT');
      expect(isWeftError(error) && error.location?.field).toBe('--otel');
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});

describe('otlpTarget: credentials other than a password', () => {
  it('a user alone (often the key itself) is never in an error message, and is scrubbed as a secret', () => {
    for (const bad of ['ftp://KEYuser0@h/', 'http://KEYuser0@[bad', 'grpc://KEYuser0@h:4317']) {
      expect(() => otlpTarget(bad, { field: '--otel' })).toThrow(/--otel|OTLP|Not a URL/);
      try {
        otlpTarget(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain('KEYuser0');
      }
    }
    const target = otlpTarget('http://KEYuser0@h:4318/');
    expect(target.display).toBe('http://h:4318/v1/traces');
    expect(target.secrets).toContain('KEYuser0');
  });

  it("every query value is a secret (any parameter's name may carry a key); a few characters are not", () => {
    const target = otlpTarget('http://h:4318/?auth=S3cr%2Fet&sig=abcdef&v=1');
    expect(target.display).toBe('http://h:4318/v1/traces?…');
    expect(target.secrets).toEqual(expect.arrayContaining(['S3cr%2Fet', 'S3cr/et', 'abcdef']));
    expect(target.secrets).not.toContain('1');
  });
});

describe('startTelemetry', () => {
  it('without the optional SDK: MISSING_DEPENDENCY saying which npm install fixes it', async () => {
    const error = await rejection(
      startTelemetry({
        importer: async (name) => {
          throw new Error(`Cannot find package '${name}'`);
        },
      }),
    );
    expect(isWeftError(error) && error.code).toBe('MISSING_DEPENDENCY');
    expect(error.message).toBe(OTEL_INSTALL_HINT);
    expect(error.message).toContain('npm install @opentelemetry/sdk-trace-node');
  });

  it('one at a time; stopping twice is fine, and a stopped one can be started again', async () => {
    const first = await startTelemetry({ exporter: noExporter, content: true });
    expect(telemetryCapturesContent()).toBe(true);
    const error = await rejection(startTelemetry({ exporter: noExporter }));
    expect(isWeftError(error) && error.code).toBe('BAD_INPUT');
    expect(await first.stop()).toEqual({ exported: 0, failed: 0 });
    expect(await first.stop()).toEqual({ exported: 0, failed: 0 });
    expect(telemetryCapturesContent()).toBe(false);
    const second = await startTelemetry({ exporter: noExporter });
    trace.getTracer('test').startSpan('one').end();
    expect(await second.stop()).toEqual({ exported: 1, failed: 0 });
  });

  it("refuses to replace an application's own tracer provider (Weft's spans already go to it)", async () => {
    expect(trace.setGlobalTracerProvider(new BasicTracerProvider())).toBe(true);
    try {
      const error = await rejection(startTelemetry({ exporter: noExporter }));
      expect(error.message).toMatch(/already registered/);
    } finally {
      trace.disable();
    }
  });

  it('the content setting: WEFT_OTEL_CONTENT unless set in code', () => {
    const saved = process.env.WEFT_OTEL_CONTENT;
    try {
      process.env.WEFT_OTEL_CONTENT = '1';
      expect(telemetryCapturesContent()).toBe(true);
      setTelemetryContent(false);
      expect(telemetryCapturesContent()).toBe(false);
      setTelemetryContent(undefined);
      process.env.WEFT_OTEL_CONTENT = '0';
      expect(telemetryCapturesContent()).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.WEFT_OTEL_CONTENT;
      else process.env.WEFT_OTEL_CONTENT = saved;
    }
  });
});
