/**
 * Registers the OpenTelemetry Node SDK so that Weft's spans (telemetry.ts) are exported over OTLP/HTTP (JSON), as
 * `weft --otel` does. The SDK (`@opentelemetry/sdk-trace-node` 2.x, `@opentelemetry/exporter-trace-otlp-http`
 * 0.223.x, the last lines for Node 20) is an optional dependency, loaded here on first use only. An application
 * with its own SDK needs none of this: the spans go to its tracer provider.
 */
import { createRequire } from 'node:module';
import { context, propagation, ProxyTracerProvider, trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import { WeftError } from '../errors.js';
import { redactUrl, scrubSecrets } from '../text/redact-url.js';
import { setTelemetryContent } from './telemetry.js';

export const OTEL_INSTALL_HINT =
  'Tracing needs the OpenTelemetry SDK: npm install @opentelemetry/sdk-trace-node@^2.12.0 @opentelemetry/exporter-trace-otlp-http@~0.223.1';

/** Spans waiting for export at most (OTEL_BSP_MAX_QUEUE_SIZE overrides). */
export const DEFAULT_SPAN_QUEUE = 16_384;

/** How long stopping waits for spans to reach the collector: a dead one must not hang the process's exit. */
export const DEFAULT_FLUSH_TIMEOUT_MS = 5_000;

export interface TelemetryOptions {
  /**
   * The collector's OTLP/HTTP base URL, like OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` is added unless the URL
   * ends with it); default OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT, else
   * http://localhost:4318. A user and password in it are sent as Basic authentication and never printed.
   */
  readonly endpoint?: string;
  /** Where the endpoint came from, for error messages (e.g. `--otel`). */
  readonly field?: string;
  /** Record prompts, replies, tool arguments and results and the task in spans (default: WEFT_OTEL_CONTENT=1). */
  readonly content?: boolean;
  /** Export to this instead of OTLP (tests, other backends): any SpanExporter of the SDK. */
  readonly exporter?: SpanExporter;
  /** Resource `service.name`; default OTEL_SERVICE_NAME, else `weft`. */
  readonly serviceName?: string;
  /**
   * How long an export, and stopping, may wait for the collector; default OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, else
   * OTEL_EXPORTER_OTLP_TIMEOUT, else 5,000 ms.
   */
  readonly flushTimeoutMs?: number;
  /** Loads the optional packages (default: `import()`); for tests. */
  readonly importer?: TelemetryImporter;
}

export interface TelemetryStopResult {
  /** Spans the exporter accepted. */
  readonly exported: number;
  /** Spans that could not be sent (the collector refused them, was unreachable, or the flush timed out). */
  readonly failed: number;
  /** Why, with any credential removed. */
  readonly error?: string;
}

export interface TelemetryHandle {
  /** Where spans go, credentials removed (`custom exporter` for an `exporter`). */
  readonly endpoint: string;
  stop(): Promise<TelemetryStopResult>;
}

let current: TelemetryHandle | undefined;

// Variable specifiers keep TypeScript and bundlers from treating the optional packages as always present.
const SDK_PACKAGE = '@opentelemetry/sdk-trace-node';
const EXPORTER_PACKAGE = '@opentelemetry/exporter-trace-otlp-http';

interface SdkModules {
  readonly sdk: typeof import('@opentelemetry/sdk-trace-node');
  readonly resources: typeof import('@opentelemetry/resources');
}

/** Imports an optional package; injectable so that tests can simulate its absence. */
export type TelemetryImporter = (name: string) => Promise<unknown>;

const defaultImporter: TelemetryImporter = (name) => import(name);

async function loadSdk(importer: TelemetryImporter): Promise<SdkModules> {
  try {
    const sdk = (await importer(SDK_PACKAGE)) as typeof import('@opentelemetry/sdk-trace-node');
    // The resources package is the SDK's own dependency: resolved from it, whatever the install's layout.
    const require = createRequire(import.meta.url);
    const base = createRequire(require.resolve(SDK_PACKAGE)).resolve('@opentelemetry/sdk-trace-base');
    const resources = createRequire(base)('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
    return { sdk, resources };
  } catch (error) {
    throw new WeftError('MISSING_DEPENDENCY', OTEL_INSTALL_HINT, { cause: error });
  }
}

async function loadExporter(
  importer: TelemetryImporter,
): Promise<typeof import('@opentelemetry/exporter-trace-otlp-http')> {
  try {
    return (await importer(EXPORTER_PACKAGE)) as typeof import('@opentelemetry/exporter-trace-otlp-http');
  } catch (error) {
    throw new WeftError('MISSING_DEPENDENCY', OTEL_INSTALL_HINT, { cause: error });
  }
}

/** OTel's own timeout variables (milliseconds), when set to a positive number. */
function envTimeout(): number | undefined {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT']) {
    const value = Number(process.env[name]?.trim() || Number.NaN);
    if (Number.isFinite(value) && value > 0) return value;
  }
  return undefined;
}

/** Whether some tracer provider (the application's, or ours) is registered with the API already. */
function providerRegistered(): boolean {
  const global = trace.getTracerProvider();
  // An unregistered API answers with a proxy whose delegate is the shared no-op provider.
  return !(global instanceof ProxyTracerProvider) || global.getDelegate() !== new ProxyTracerProvider().getDelegate();
}

/** The shortest user or query value of an endpoint treated as a credential when scrubbing messages. */
const MIN_SCRUBBED_CHARS = 4;

export interface OtlpTarget {
  /** The URL spans are posted to, without user info. */
  readonly url: string;
  /** Basic authentication from the URL's user info. */
  readonly headers: Record<string, string>;
  /** The URL fit to print. */
  readonly display: string;
  /** Credentials the URL held (user info, secret parameters): never in a message. */
  readonly secrets: readonly string[];
}

/** The traces URL for an OTLP/HTTP endpoint (pure): `/v1/traces` added to a base URL, credentials moved out. */
export function otlpTarget(
  endpoint: string,
  options: { readonly exact?: boolean; readonly field?: string } = {},
): OtlpTarget {
  const redacted = redactUrl(endpoint);
  const secrets = [...redacted.secrets];
  // A user alone is often the key itself (`https://KEY@host`): the user info goes from every message, whole.
  const display = redacted.display.replace(/^(\s*[a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/i, '$1');
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    throw new WeftError('BAD_INPUT', `Not a URL: "${display}" (expected e.g. http://127.0.0.1:4318)`, {
      location: { field: options.field ?? 'endpoint' },
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WeftError(
      'BAD_INPUT',
      `The OTLP endpoint must be an http:// or https:// URL (OTLP over HTTP), got "${scrubSecrets(display, secrets)}"`,
      { location: { field: options.field ?? 'endpoint' } },
    );
  }
  // Every credential the URL holds, for scrubbing what the exporter or the collector says back (a reason phrase may
  // quote the request's URL): the user, and any query parameter's value (they are printed as `?…` too).
  // A value of a few characters (`?v=1`) is no credential, and scrubbing it would garble every message.
  const keep = (value: string) => {
    if (value.length < MIN_SCRUBBED_CHARS) return;
    secrets.push(value);
    try {
      secrets.push(decodeURIComponent(value));
    } catch {
      // Not percent-encoded: the raw form is kept.
    }
  };
  keep(url.username);
  for (const part of url.search.slice(1).split('&')) keep(part.slice(part.indexOf('=') + 1));
  for (const [, value] of url.searchParams) keep(value);
  const headers: Record<string, string> = {};
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  if (!options.exact && !/\/v1\/traces\/?$/.test(url.pathname))
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  // Query parameters may carry a key: shown as `?…`.
  const shown = `${url.origin}${url.pathname}${url.search === '' ? '' : '?…'}`;
  const password = decodeURIComponent(new URL(endpoint.trim()).password);
  return {
    url: url.toString(),
    headers,
    display: shown,
    secrets: [
      ...secrets,
      ...(password !== '' ? [password] : []),
      ...(headers.Authorization !== undefined ? [headers.Authorization.slice('Basic '.length)] : []),
    ].filter((secret) => secret.length > 0),
  };
}

/** The endpoint from the options or the standard environment variables. */
function resolveTarget(options: TelemetryOptions): OtlpTarget {
  const field = options.field ?? 'endpoint';
  if (options.endpoint !== undefined && options.endpoint.trim() !== '') return otlpTarget(options.endpoint, { field });
  const traces = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces !== undefined && traces.trim() !== '')
    return otlpTarget(traces, { exact: true, field: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' });
  const base = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base !== undefined && base.trim() !== '') return otlpTarget(base, { field: 'OTEL_EXPORTER_OTLP_ENDPOINT' });
  return otlpTarget('http://localhost:4318', { field });
}

/**
 * Registers the Node SDK (a tracer provider with a batch span processor, the AsyncLocalStorage context manager)
 * exporting to an OTLP/HTTP collector. One at a time: refused while one is started or another provider is
 * registered (whose spans Weft's then join: there is nothing to start). `stopTelemetry()` flushes and unregisters.
 */
export async function startTelemetry(options: TelemetryOptions = {}): Promise<TelemetryHandle> {
  if (current) throw new WeftError('BAD_INPUT', 'Telemetry is already started: stop it first (stopTelemetry())');
  if (providerRegistered())
    throw new WeftError(
      'BAD_INPUT',
      "An OpenTelemetry tracer provider is already registered: Weft's spans go to it, and startTelemetry is not needed",
    );
  const flushTimeoutMs = options.flushTimeoutMs ?? envTimeout() ?? DEFAULT_FLUSH_TIMEOUT_MS;
  if (!(Number.isFinite(flushTimeoutMs) && flushTimeoutMs > 0))
    throw new WeftError('BAD_INPUT', `Expected flushTimeoutMs > 0, got ${String(flushTimeoutMs)}`, {
      location: { field: 'flushTimeoutMs' },
    });
  const target = options.exporter ? undefined : resolveTarget(options);
  const importer = options.importer ?? defaultImporter;
  const { sdk, resources } = await loadSdk(importer);
  let inner: SpanExporter;
  if (options.exporter) inner = options.exporter;
  else {
    const { OTLPTraceExporter } = await loadExporter(importer);
    inner = new OTLPTraceExporter({
      url: target!.url,
      headers: target!.headers,
      timeoutMillis: flushTimeoutMs,
      // No idle sockets left behind to keep the process alive after the last export.
      keepAlive: false,
    });
  }
  const counts = { exported: 0, failed: 0, error: undefined as string | undefined };
  const secrets = target?.secrets ?? [];
  const exporter: SpanExporter = {
    export(spans, done) {
      inner.export(spans, (result) => {
        if (result.code === 0) counts.exported += spans.length;
        else {
          counts.failed += spans.length;
          counts.error ??= scrubSecrets(redactUrl(result.error?.message ?? 'export failed').display, secrets);
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush!() } : {}),
  };
  const serviceName = options.serviceName ?? (process.env.OTEL_SERVICE_NAME?.trim() || 'weft');
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME are read by the env detector; an explicit name wins over them.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'weft' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }));
  // A 1,000-subtask run makes 3,000 spans in about a second: the SDK's default queue (2,048) would drop some.
  const queue = Number(process.env.OTEL_BSP_MAX_QUEUE_SIZE?.trim() || Number.NaN);
  const processor = new sdk.BatchSpanProcessor(exporter, {
    exportTimeoutMillis: flushTimeoutMs,
    maxQueueSize: Number.isInteger(queue) && queue > 0 ? queue : DEFAULT_SPAN_QUEUE,
  });
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  if (options.content !== undefined) setTelemetryContent(options.content);

  let stopping: Promise<TelemetryStopResult> | undefined;
  const handle: TelemetryHandle = {
    endpoint: target?.display ?? 'custom exporter',
    stop: () => {
      stopping ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), flushTimeoutMs);
        });
        const flushed = await Promise.race([
          provider.shutdown().then(
            () => 'done' as const,
            (error: unknown) => {
              counts.error ??= error instanceof Error ? error.message : String(error);
              return 'done' as const;
            },
          ),
          timedOut,
        ]);
        clearTimeout(timer);
        if (flushed === 'timeout') counts.error ??= `no answer from the collector within ${flushTimeoutMs} ms`;
        // Unregistered, so that a later start (a library's next run, a test) can register again.
        trace.disable();
        context.disable();
        propagation.disable();
        if (options.content !== undefined) setTelemetryContent(undefined);
        if (current === handle) current = undefined;
        return {
          exported: counts.exported,
          failed: counts.failed,
          ...(counts.error !== undefined ? { error: scrubSecrets(counts.error, secrets) } : {}),
        };
      })();
      return stopping;
    },
  };
  current = handle;
  return handle;
}

/** Flushes and unregisters what startTelemetry registered (bounded wait); undefined when nothing was started. */
export async function stopTelemetry(): Promise<TelemetryStopResult | undefined> {
  return current?.stop();
}
