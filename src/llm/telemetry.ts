/**
 * Weft's OpenTelemetry spans, after the GenAI semantic conventions: `invoke_workflow` for a run, `invoke_agent
 * {role}` per subtask attempt, `chat {model}` per model call, `execute_tool {tool}` per tool call. Through
 * `@opentelemetry/api` only: without a registered SDK every span is a no-op, and an application with its own SDK
 * gets Weft's spans in its traces with nothing to set up (start-telemetry.ts registers one for the CLI).
 *
 * Message content (prompts, replies, tool arguments and results, the task) is recorded only when opted in
 * (`setTelemetryContent(true)`, `WEFT_OTEL_CONTENT=1`); tool arguments are recorded as the run's log records them,
 * with a tool's secret arguments redacted.
 */
import { type Attributes, type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ChatCall, ChatMessage, ChatResult, ToolCallRequest } from './chat-model.js';

const TRACER_NAME = 'weft';

let contentSetting: boolean | undefined;

/** Turns message content in spans on or off; `undefined` goes back to the environment (`WEFT_OTEL_CONTENT=1`). */
export function setTelemetryContent(on: boolean | undefined): void {
  contentSetting = on;
}

/** Whether spans carry message content: the setting, else `WEFT_OTEL_CONTENT` (or OTel's GenAI capture variable). */
export function telemetryCapturesContent(): boolean {
  if (contentSetting !== undefined) return contentSetting;
  return (
    isTrue(process.env.WEFT_OTEL_CONTENT) || isTrue(process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)
  );
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

// Asked for at each span: a provider registered (or replaced) after this module loaded is picked up.
function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** The longest text one content part keeps: collectors refuse huge requests, and a prompt can hold whole outputs. */
export const MAX_CONTENT_CHARS = 16_384;

/** The longest name or id a model gave that a span keeps (a tool's name, a tool call's id). */
const MAX_NAME_CHARS = 200;

/** The longest content attribute (a whole conversation, its parts already cut); cut further, it is no longer JSON. */
export const MAX_ATTRIBUTE_CHARS = 4 * MAX_CONTENT_CHARS;

function clip(text: string, max = MAX_CONTENT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [cut: ${text.length} characters]`;
}

function json(value: unknown): string {
  try {
    return clip(JSON.stringify(value) ?? 'null', MAX_ATTRIBUTE_CHARS);
  } catch {
    return '"[not JSON]"';
  }
}

/** Ends a span as failed: the exception recorded (its message, never a stack), `error.type` its code or name. */
function fail(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute('error.type', typeof code === 'string' ? code : error instanceof Error ? error.name : '_OTHER');
  span.addEvent('exception', {
    'exception.type': typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error',
    'exception.message': clip(message),
  });
  span.setStatus({ code: SpanStatusCode.ERROR, message: clip(message) });
}

/** The context spans are parented by here (for work started later from elsewhere, e.g. an executor's callbacks). */
export function activeTelemetryContext(): Context {
  return context.active();
}

/** Runs `work` with `parent` as the active context. */
export function withTelemetryContext<T>(parent: Context, work: () => T): T {
  return context.with(parent, work);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The active span as a W3C `traceparent` (`00-{trace id}-{span id}-{flags}`), for work that continues in another
 * process (a `weft worker`'s job); undefined when no span is recording.
 */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Runs `work` as a child of the span a `traceparent` names (another process's): spans made inside join that
 * trace. Anything but a well-formed, valid `traceparent` (it comes from a queue) is ignored.
 */
export function withTraceparent<T>(traceparent: unknown, work: () => T): T {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return work();
  const spanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & 1,
    isRemote: true,
  };
  if (!trace.isSpanContextValid(spanContext)) return work();
  return context.with(trace.setSpanContext(context.active(), spanContext), work);
}

export interface RunSpanInfo {
  readonly runId: string;
  readonly task: string;
  readonly strategy: string;
  /** A resumed run gets a new `invoke_workflow` span, in a new trace, marked so. */
  readonly resumed: boolean;
}

export interface RunSpanEnding {
  readonly status: string;
  readonly reason?: string;
  readonly calls?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
}

/** `invoke_workflow` around a whole run; its model calls and attempts are its children. */
export async function traceRun<T>(
  info: RunSpanInfo,
  work: () => Promise<T>,
  ending: (result: T) => RunSpanEnding,
): Promise<T> {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'invoke_workflow',
    'gen_ai.conversation.id': info.runId,
    'weft.run.id': info.runId,
    'weft.strategy': info.strategy,
    ...(info.resumed ? { 'weft.run.resumed': true } : {}),
  };
  const span = tracer().startSpan('invoke_workflow', { kind: SpanKind.INTERNAL, attributes });
  if (span.isRecording() && telemetryCapturesContent()) span.setAttribute('weft.task', clip(info.task));
  try {
    const result = await context.with(trace.setSpan(context.active(), span), work);
    const end = ending(result);
    span.setAttributes({
      'weft.run.status': end.status,
      ...(end.calls !== undefined ? { 'weft.calls': end.calls } : {}),
      ...(end.inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': end.inputTokens } : {}),
      ...(end.outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': end.outputTokens } : {}),
      ...(end.costUsd !== undefined ? { 'weft.cost_usd': end.costUsd } : {}),
    });
    if (end.status === 'failed') {
      span.setAttribute('error.type', 'run_failed');
      span.setStatus({ code: SpanStatusCode.ERROR, message: clip(end.reason ?? 'failed') });
    }
    return result;
  } catch (error) {
    span.setAttribute('weft.run.status', 'failed');
    fail(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export interface AgentSpanInfo {
  /** `gen_ai.agent.name`; the span is `invoke_agent {agent}`. */
  readonly agent: string;
  /** Further attributes (the command, its settings): never content. */
  readonly attributes?: Attributes;
  /** Attributes that are content (the task, a user's message): recorded only with the opt-in, each cut. */
  readonly content?: Readonly<Record<string, string>>;
}

/**
 * `invoke_agent {agent}` around work that is not a run: a command's planner, a solver, a chat turn. The model and
 * tool calls made inside are its children; `ending` adds attributes from the result (totals, a verdict).
 */
export async function traceAgent<T>(
  info: AgentSpanInfo,
  work: () => Promise<T>,
  ending?: (result: T) => Attributes,
): Promise<T> {
  const agent = clip(info.agent, MAX_NAME_CHARS);
  return traced(
    `invoke_agent ${agent}`,
    { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, ...info.attributes },
    info.content,
    work,
    ending,
  );
}

/**
 * `invoke_workflow` around several agents' work that is not a run (a DyLAN team's question, a team's evaluation),
 * as a run's span is named; `attributes` say which (`weft.command`, the team).
 */
export async function traceWorkflow<T>(
  info: Omit<AgentSpanInfo, 'agent'>,
  work: () => Promise<T>,
  ending?: (result: T) => Attributes,
): Promise<T> {
  return traced(
    'invoke_workflow',
    { 'gen_ai.operation.name': 'invoke_workflow', ...info.attributes },
    info.content,
    work,
    ending,
  );
}

async function traced<T>(
  name: string,
  attributes: Attributes,
  content: AgentSpanInfo['content'],
  work: () => Promise<T>,
  ending: ((result: T) => Attributes) | undefined,
): Promise<T> {
  const span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes });
  if (content && span.isRecording() && telemetryCapturesContent())
    for (const [key, value] of Object.entries(content)) span.setAttribute(key, clip(value));
  try {
    const result = await context.with(trace.setSpan(context.active(), span), work);
    if (ending) span.setAttributes(ending(result));
    return result;
  } catch (error) {
    fail(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export interface AttemptSpanInfo {
  readonly role: string;
  readonly roleKind: string;
  readonly taskId: string;
  readonly attempt: number;
}

export interface AttemptSpan {
  /** Runs `work` with this span active: the attempt's model and tool calls become its children. */
  run<T>(work: () => T): T;
  end(ending: { readonly verdict?: string; readonly reason?: string; readonly error?: unknown }): void;
}

/** `invoke_agent {role}` for one attempt at one subtask, a child of `parent` (the run's context). */
export function startAttemptSpan(info: AttemptSpanInfo, parent: Context): AttemptSpan {
  const span = tracer().startSpan(
    `invoke_agent ${info.role}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': info.role,
        'weft.role.kind': info.roleKind,
        'weft.task.id': info.taskId,
        'weft.attempt': info.attempt,
      },
    },
    parent,
  );
  return new StartedAttemptSpan(span, withoutSdk(span, parent) ? parent : trace.setSpan(parent, span));
}

/**
 * Whether `span` is the API's no-op one (no SDK registered): it records nothing and carries the parent's context
 * again, or none, so the parent can stay the active context. That spares a context copy and a few closures per
 * attempt and per model call (a 100,000-subtask run makes as many). An SDK's span, even one its sampler drops,
 * has a context of its own and becomes the active one.
 */
function withoutSdk(span: Span, parent: Context): boolean {
  const own = span.spanContext();
  return !span.isRecording() && (own === trace.getSpanContext(parent) || !trace.isSpanContextValid(own));
}

/** A chat span of the no-op tracer: nothing to set or end, and the active context stays as it is. */
const UNRECORDED_CHAT_SPAN: ChatSpan = {
  run: (work) => work(),
  succeed: () => {},
  fail: () => {},
};

/** A class, not closures: one small object per attempt. */
class StartedAttemptSpan implements AttemptSpan {
  private ended = false;

  constructor(
    private readonly span: Span,
    private readonly active: Context,
  ) {}

  run<T>(work: () => T): T {
    return context.with(this.active, work);
  }

  end({ verdict, reason, error }: { verdict?: string; reason?: string; error?: unknown }): void {
    if (this.ended) return;
    this.ended = true;
    const span = this.span;
    if (verdict !== undefined) span.setAttribute('weft.verdict', verdict);
    if (reason !== undefined && span.isRecording() && telemetryCapturesContent())
      span.setAttribute('weft.reason', clip(reason));
    if (error !== undefined) fail(span, error);
    span.end();
  }
}

export interface ChatSpanInfo {
  /** The model as the run records it (no key, no URL password). */
  readonly model: string;
  /** The provider: the model spec's prefix. */
  readonly provider: string;
  readonly purpose: string;
  readonly taskId?: string;
  readonly attempt?: number;
  readonly call: ChatCall;
  /** How the log shows tool arguments (secret ones redacted): content attributes show them the same way. */
  readonly redactToolArgs?: (name: string, args: unknown) => unknown;
}

export interface ChatSpan {
  run<T>(work: () => T): T;
  /** `costUsd` undefined: not priced here (a worker's call, priced by its coordinator). */
  succeed(result: ChatResult, costUsd: number | undefined, model: string): void;
  fail(error: unknown): void;
}

/** `chat {model}` for one model call, a child of whatever span is active (an attempt, else the run). */
export function startChatSpan(info: ChatSpanInfo): ChatSpan {
  const span = tracer().startSpan(`chat ${info.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': info.provider,
      'gen_ai.request.model': info.model,
      'weft.call.purpose': info.purpose,
      ...(info.taskId !== undefined ? { 'weft.task.id': info.taskId } : {}),
      ...(info.attempt !== undefined ? { 'weft.attempt': info.attempt } : {}),
      ...(info.call.maxTokens !== undefined ? { 'gen_ai.request.max_tokens': info.call.maxTokens } : {}),
      ...(info.call.temperature !== undefined ? { 'gen_ai.request.temperature': info.call.temperature } : {}),
    },
  });
  const parent = context.active();
  if (withoutSdk(span, parent)) return UNRECORDED_CHAT_SPAN;
  const content = span.isRecording() && telemetryCapturesContent();
  if (content) {
    if (info.call.system !== undefined)
      span.setAttribute('gen_ai.system_instructions', json([{ type: 'text', content: clip(info.call.system) }]));
    span.setAttribute('gen_ai.input.messages', json(info.call.messages.map((m) => inputMessage(m, info))));
  }
  const active = trace.setSpan(parent, span);
  return {
    run: (work) => context.with(active, work),
    succeed: (result, costUsd, model) => {
      span.setAttributes({
        'gen_ai.response.model': model,
        'gen_ai.usage.input_tokens': result.usage.inputTokens,
        'gen_ai.usage.output_tokens': result.usage.outputTokens,
        ...(costUsd !== undefined ? { 'weft.cost_usd': costUsd } : {}),
      });
      if (content) span.setAttribute('gen_ai.output.messages', json([outputMessage(result, info)]));
      span.end();
    },
    fail: (error) => {
      fail(span, error);
      span.end();
    },
  };
}

function toolCallParts(calls: readonly ToolCallRequest[] | undefined, info: ChatSpanInfo): unknown[] {
  return (calls ?? []).map((call) => ({
    type: 'tool_call',
    id: call.id,
    name: call.name,
    arguments: info.redactToolArgs ? info.redactToolArgs(call.name, call.args) : call.args,
  }));
}

function inputMessage(message: ChatMessage, info: ChatSpanInfo): unknown {
  if (message.role === 'tool')
    return {
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: message.toolCallId, response: clip(message.content) }],
    };
  const text = message.content === '' ? [] : [{ type: 'text', content: clip(message.content) }];
  if (message.role === 'user') return { role: 'user', parts: text };
  return { role: 'assistant', parts: [...text, ...toolCallParts(message.toolCalls, info)] };
}

function outputMessage(result: ChatResult, info: ChatSpanInfo): unknown {
  const text = result.text === '' ? [] : [{ type: 'text', content: clip(result.text) }];
  const calls = toolCallParts(result.toolCalls, info);
  return {
    role: 'assistant',
    parts: [...text, ...calls],
    finish_reason: calls.length > 0 ? 'tool_call' : 'stop',
  };
}

export interface ToolSpanInfo {
  readonly name: string;
  readonly callId: string;
  /** As the log records them: secret arguments redacted. */
  readonly args: unknown;
  readonly description?: string;
}

export interface ToolSpan {
  run<T>(work: () => T): T;
  end(
    outcome:
      | { readonly ok: true; readonly result: unknown }
      | { readonly ok: false; readonly error: string; readonly code: string },
  ): void;
}

/** `execute_tool {tool}` for one tool call, a child of the active span (the attempt). */
export function startToolSpan(info: ToolSpanInfo): ToolSpan {
  // The name and id are the model's: a runaway one is cut, not copied whole into every span.
  const name = clip(info.name, MAX_NAME_CHARS);
  const span = tracer().startSpan(`execute_tool ${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': clip(info.callId, MAX_NAME_CHARS),
      'gen_ai.tool.type': 'function',
    },
  });
  const content = span.isRecording() && telemetryCapturesContent();
  if (content) {
    span.setAttribute('gen_ai.tool.call.arguments', json(info.args));
    if (info.description !== undefined) span.setAttribute('gen_ai.tool.description', clip(info.description));
  }
  const active = trace.setSpan(context.active(), span);
  return {
    run: (work) => context.with(active, work),
    end: (outcome) => {
      if (outcome.ok) {
        if (content) span.setAttribute('gen_ai.tool.call.result', json(outcome.result));
      } else {
        span.setAttribute('error.type', outcome.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: clip(outcome.error) });
      }
      span.end();
    },
  };
}

/**
 * `gen_ai.provider.name` for a model spec: its prefix (`openai`, `anthropic`, `ollama`, `sim`, …); an
 * `openai-compatible:` server is reached with OpenAI's API, which the conventions name `openai`.
 */
export function telemetryProvider(spec: string): string {
  const colon = spec.indexOf(':');
  const prefix = colon > 0 ? spec.slice(0, colon).toLowerCase() : '_OTHER';
  return prefix === 'openai-compatible' ? 'openai' : prefix;
}
