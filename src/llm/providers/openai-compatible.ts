/**
 * A ChatModel for any server speaking OpenAI's Chat Completions API: OpenAI itself, Ollama's `/v1`, vLLM,
 * llama.cpp server, LM Studio, … Built on the `openai` SDK with its retries turned off: Weft's own retry
 * wrapper decides when to try again.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatCall, ChatMessage, ChatModel, ChatResult, ToolCallRequest } from '../chat-model.js';
import { nextToolCallNumber, toolCallId } from '../tool-call-ids.js';
import { cutStreamError } from '../cut-stream-error.js';
import { splitBaseUrl } from './base-url.js';
import {
  classifySdkError,
  throwIfAborted,
  toWeftError,
  withoutSecrets,
  type ProviderContext,
  type ProviderFailure,
} from './provider-error.js';

/** What reaching a server of OpenAI's API takes; shared by the chat model and the embedder (src/eval). */
export interface OpenAIConnectionOptions {
  readonly model: string;
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseURL: string;
  /** Local servers ignore it; pass a placeholder such as `none` or `ollama`. */
  readonly apiKey: string;
  /** Name used in error messages: `OpenAI`, `Ollama`, `OpenAI-compatible server`. */
  readonly providerName?: string;
  /** The env var the key came from, named when the server rejects it. */
  readonly apiKeyEnv?: string;
  /** Replaces global fetch (tests replay recorded fixtures through it). */
  readonly fetch?: typeof globalThis.fetch;
  /** Per-request timeout of the SDK in milliseconds (default: the SDK's 10 minutes). */
  readonly timeoutMs?: number;
}

export interface OpenAICompatibleModelOptions extends OpenAIConnectionOptions {
  /** The spec string, e.g. `ollama:llama3.2`. */
  readonly id: string;
  /**
   * Which request field carries `call.maxTokens`. OpenAI deprecated `max_tokens` in favour of
   * `max_completion_tokens` (its reasoning models reject `max_tokens`); other servers mostly know only
   * `max_tokens`. Default `max_tokens`.
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * `native` (default): tools go out as OpenAI function tools. `prompted`: the server's model has no tool support
   * (the `?tools=prompted` spec option), so this model never sends tools and leaves `toolCalling` unset:
   * `createModel` then wraps it in the prompted fallback (prompted-tools.ts).
   */
  readonly toolCalling?: 'native' | 'prompted';
}

/** The SDK client (its retries off: Weft's own wrapper retries) and the context its errors are reported in. */
export function openAIConnection(options: OpenAIConnectionOptions): {
  client: OpenAI;
  context: ProviderContext;
  secrets: readonly string[];
} {
  const { baseURL, authorization, secrets } = splitBaseUrl(options.baseURL);
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL,
    maxRetries: 0,
    // The URL's own credentials replace the bearer key: they are what its server was given.
    ...(authorization ? { defaultHeaders: { Authorization: authorization } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
  const context: ProviderContext = {
    provider: options.providerName ?? 'OpenAI-compatible server',
    model: options.model,
    baseURL,
    ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
  };
  return { client, context, secrets };
}

export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): ChatModel {
  const { client, context, secrets } = openAIConnection(options);
  const maxTokensField = options.maxTokensField ?? 'max_tokens';
  const native = options.toolCalling !== 'prompted';

  async function generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
    throwIfAborted(signal, context);
    const messages: ChatCompletionMessageParam[] = [];
    if (call.system !== undefined && call.system !== '') messages.push({ role: 'system', content: call.system });
    for (const message of call.messages) messages.push(toWireMessage(message));

    const body: ChatCompletionCreateParamsNonStreaming = { model: options.model, messages };
    if (call.maxTokens !== undefined) body[maxTokensField] = call.maxTokens;
    if (call.temperature !== undefined) body.temperature = call.temperature;
    if (native && call.tools !== undefined && call.tools.length > 0) {
      body.tools = call.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } },
      }));
      if (call.toolChoice !== undefined) body.tool_choice = call.toolChoice;
    }
    // `call.json` deliberately does not set `response_format`: many small and local models (and some
    // OpenAI-compatible servers) break or hang under forced JSON mode / json_schema, and others reject the
    // field outright. The prompt asks for JSON and the caller parses, repairs and re-prompts instead.

    if (call.onStream) return streamReply(body, call.onStream, nextToolCallNumber(call.messages), signal);

    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client.chat.completions.create(body, signal ? { signal } : undefined);
    } catch (error) {
      let failure = classifyOpenAIError(error);
      // Servers refuse `tools` for models without tool support with a 400 (Ollama: "… does not support tools");
      // the way out is the prompted fallback, so say how to ask for it.
      if (body.tools && failure.kind === 'http' && failure.status === 400) {
        failure = { ...failure, detail: `${failure.detail ?? 'bad request'}${PROMPTED_HINT}` };
      }
      throw withoutSecrets(toWeftError(failure, error, context, signal), secrets);
    }

    const choice = completion.choices[0];
    if (!choice) {
      throw toWeftError({ kind: 'other', detail: 'the response has no choices' }, undefined, context);
    }
    const toolCalls = fromWireToolCalls(choice.message.tool_calls, nextToolCallNumber(call.messages));
    return {
      text: choice.message.content ?? choice.message.refusal ?? '',
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      usage: {
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
      },
      model: completion.model || options.model,
    };
  }

  /**
   * The reply as server-sent events, each text piece handed on as it comes; tool calls arrive as fragments (by
   * index: the id and name first, the arguments' JSON text in pieces) and are put together at the end. A cut
   * (abort, dropped connection, timeout) throws the usual error carrying the text that arrived as `partialText`.
   */
  async function streamReply(
    body: ChatCompletionCreateParamsNonStreaming,
    onStream: NonNullable<ChatCall['onStream']>,
    firstCallNumber: number,
    signal: AbortSignal | undefined,
  ): Promise<ChatResult> {
    let text = '';
    const calls: Array<{ id?: string; type: 'function'; function: { name?: string; arguments: string } }> = [];
    let model = options.model;
    let usage = { inputTokens: 0, outputTokens: 0 };
    try {
      const stream = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        signal ? { signal } : undefined,
      );
      for await (const chunk of stream) {
        if (chunk.model) model = chunk.model;
        if (chunk.usage) {
          usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        }
        const delta = chunk.choices[0]?.delta;
        for (const fragment of delta?.tool_calls ?? []) {
          const entry = (calls[fragment.index] ??= { type: 'function', function: { arguments: '' } });
          if (fragment.id) entry.id = fragment.id;
          if (fragment.function?.name) entry.function.name = (entry.function.name ?? '') + fragment.function.name;
          if (fragment.function?.arguments) entry.function.arguments += fragment.function.arguments;
        }
        const piece = delta?.content ?? delta?.refusal ?? '';
        if (piece === '') continue;
        text += piece;
        onStream({ kind: 'delta', text: piece });
      }
      // The SDK ends the iteration quietly when the signal aborts; that is a cut, not a finished reply.
      throwIfAborted(signal, context);
    } catch (error) {
      // After the response began, a bare failure is the connection dropping mid-stream (worth a retry).
      const failure: ProviderFailure =
        text !== '' && !(error instanceof APIError) && !signal?.aborted
          ? { kind: 'connection', detail: error instanceof Error ? error.message : String(error) }
          : classifyOpenAIError(error);
      const failed = withoutSecrets(toWeftError(failure, error, context, signal), secrets);
      throw cutStreamError(failed, text);
    }
    // A server that skips an index leaves a hole, dropped here; so is an entry that never got a name.
    const toolCalls = fromWireToolCalls(
      calls.filter((entry) => entry !== undefined),
      firstCallNumber,
    );
    return { text, ...(toolCalls.length > 0 ? { toolCalls } : {}), usage, model };
  }

  return { id: options.id, kind: 'real', ...(native ? { toolCalling: 'native' as const } : {}), generate };
}

const PROMPTED_HINT =
  ' (the request offered tools; if this model has no tool support, add "?tools=prompted" after the model name in its spec)';

/** A conversation message in OpenAI's wire form: tool calls with their arguments as JSON text, results by call id. */
function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // OpenAI documents null content for a reply that only calls tools.
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((toolCall) => ({
          id: toolCall.id,
          type: 'function',
          function: {
            name: toolCall.name,
            // Arguments that never parsed went out as the model wrote them; send them back the same way.
            arguments: typeof toolCall.args === 'string' ? toolCall.args : JSON.stringify(toolCall.args ?? {}),
          },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/**
 * The reply's tool calls. Arguments arrive as JSON text: parsed when they parse (empty text, which some servers
 * send for a tool without parameters, is `{}`), kept as the string otherwise so the tool loop can show the model
 * its mistake. A server that omits ids gets `call_<n>`.
 */
function fromWireToolCalls(wire: readonly WireToolCall[] | null | undefined, firstNumber: number): ToolCallRequest[] {
  if (!Array.isArray(wire)) return [];
  const calls: ToolCallRequest[] = [];
  for (const entry of wire as readonly WireToolCall[]) {
    if (entry.type !== undefined && entry.type !== 'function') continue;
    const fn = entry.function;
    if (!fn || typeof fn.name !== 'string') continue;
    const id = typeof entry.id === 'string' && entry.id !== '' ? entry.id : toolCallId(firstNumber + calls.length);
    calls.push({ id, name: fn.name, args: parseArguments(fn.arguments) });
  }
  return calls;
}

/** A tool call as a reply carries it, or as a stream's fragments put it together (the id may be missing). */
interface WireToolCall {
  readonly id?: unknown;
  readonly type?: string;
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown };
}

function parseArguments(text: unknown): unknown {
  // A few servers send the arguments as an object already.
  if (typeof text !== 'string') return text ?? {};
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const OPENAI_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

/** Classifies what the `openai` SDK threw; an HTTP error's detail is the message of its error body. */
export function classifyOpenAIError(error: unknown): ProviderFailure {
  return classifySdkError(error, OPENAI_ERRORS, (apiError) => ({
    detail: bodyMessage(apiError.error) ?? apiError.message,
  }));
}

/** OpenAI error bodies are `{ error: { message, type, param, code } }`; the SDK hands us the inner object. */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
    return body.message;
  }
  return undefined;
}
