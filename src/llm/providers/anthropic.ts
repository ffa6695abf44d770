/**
 * A ChatModel for Anthropic's Messages API via `@anthropic-ai/sdk`, with the SDK's retries turned off
 * (Weft's own retry wrapper decides when to try again).
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCall, ChatMessage, ChatModel, ChatResult, ToolCallRequest } from '../chat-model.js';
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

export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicModelOptions {
  /** The spec string, e.g. `anthropic:claude-3-5-haiku-latest`. */
  readonly id: string;
  readonly model: string;
  readonly apiKey: string;
  /** Default https://api.anthropic.com. Passed explicitly so the SDK reads no environment of its own. */
  readonly baseURL?: string;
  /** Replaces global fetch (tests replay recorded fixtures through it). */
  readonly fetch?: typeof globalThis.fetch;
  /** Per-request timeout of the SDK in milliseconds (default: the SDK's). */
  readonly timeoutMs?: number;
  /** `prompted`: send no tools and leave `toolCalling` unset, so `createModel` adds the prompted fallback. */
  readonly toolCalling?: 'native' | 'prompted';
}

export function createAnthropicModel(options: AnthropicModelOptions): ChatModel {
  const { baseURL, authorization, secrets } = splitBaseUrl(options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL);
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL,
    maxRetries: 0,
    // A proxy's credentials in ANTHROPIC_BASE_URL: fetch refuses them in the URL, and they must not be printed.
    ...(authorization ? { defaultHeaders: { Authorization: authorization } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
  const context: ProviderContext = {
    provider: 'Anthropic',
    model: options.model,
    baseURL,
    apiKeyEnv: 'ANTHROPIC_API_KEY',
  };

  const native = options.toolCalling !== 'prompted';

  async function generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
    throwIfAborted(signal, context);
    const body: MessageCreateParamsNonStreaming = {
      model: options.model,
      max_tokens: call.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: toWireMessages(call.messages),
    };
    if (native && call.tools !== undefined && call.tools.length > 0) {
      body.tools = call.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: { type: 'object', ...tool.inputSchema },
      }));
      if (call.toolChoice !== undefined) body.tool_choice = { type: TOOL_CHOICE[call.toolChoice] };
    }
    // Anthropic takes the system prompt as a top-level field, not as a message.
    if (call.system !== undefined && call.system !== '') body.system = call.system;
    // `call.temperature` is not sent: the Messages API deprecated `temperature` and this SDK no longer has
    // the field, so sending it could turn a working call into a 400.
    // `call.json` is not forced through a structured-output mode: the prompt asks for JSON and the caller
    // parses, repairs and re-prompts, the same way for every provider.

    if (call.onStream) return streamReply(body, call.onStream, signal);

    let message: Anthropic.Message;
    try {
      message = await client.messages.create(body, signal ? { signal } : undefined);
    } catch (error) {
      throw withoutSecrets(toWeftError(classify(error), error, context, signal), secrets);
    }

    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const toolCalls: ToolCallRequest[] = message.content.flatMap((block) =>
      block.type === 'tool_use' ? [{ id: block.id, name: block.name, args: block.input }] : [],
    );
    const usage = message.usage;
    return {
      text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      usage: {
        // input_tokens excludes prompt-cache reads and writes; all of them are input the call consumed.
        inputTokens:
          usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
        outputTokens: usage.output_tokens,
      },
      model: message.model || options.model,
    };
  }

  /**
   * The reply as Anthropic's message stream events: text pieces handed on as they come, a `tool_use` block's
   * input put together from its JSON fragments. A cut throws the usual error carrying `partialText`.
   */
  async function streamReply(
    body: MessageCreateParamsNonStreaming,
    onStream: NonNullable<ChatCall['onStream']>,
    signal: AbortSignal | undefined,
  ): Promise<ChatResult> {
    let text = '';
    const uses = new Map<number, { id: string; name: string; json: string }>();
    let model = options.model;
    let inputTokens = 0;
    let outputTokens = 0;
    try {
      const stream = await client.messages.create({ ...body, stream: true }, signal ? { signal } : undefined);
      for await (const event of stream) {
        if (event.type === 'message_start') {
          const usage = event.message.usage;
          model = event.message.model || model;
          inputTokens =
            usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
          outputTokens = usage.output_tokens;
        } else if (event.type === 'message_delta') {
          outputTokens = event.usage.output_tokens;
        } else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
          uses.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
        } else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
          const use = uses.get(event.index);
          if (use) use.json += event.delta.partial_json;
        } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          text += event.delta.text;
          onStream({ kind: 'delta', text: event.delta.text });
        }
      }
      // The SDK may end the iteration quietly when the signal aborts; that is a cut, not a finished reply.
      throwIfAborted(signal, context);
    } catch (error) {
      // After the response began, a bare failure is the connection dropping mid-stream (worth a retry).
      const failure: ProviderFailure =
        text !== '' && !(error instanceof APIError) && !signal?.aborted
          ? { kind: 'connection', detail: error instanceof Error ? error.message : String(error) }
          : classify(error);
      throw cutStreamError(withoutSecrets(toWeftError(failure, error, context, signal), secrets), text);
    }
    const toolCalls: ToolCallRequest[] = [...uses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, use]) => ({ id: use.id, name: use.name, args: streamedInput(use.json) }));
    return { text, ...(toolCalls.length > 0 ? { toolCalls } : {}), usage: { inputTokens, outputTokens }, model };
  }

  return { id: options.id, kind: 'real', ...(native ? { toolCalling: 'native' as const } : {}), generate };
}

/**
 * A streamed `tool_use` block's input: its JSON fragments joined (none for a tool without parameters: `{}`), kept
 * as the text when it does not parse, so the tool loop can show the model its mistake.
 */
function streamedInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

const TOOL_CHOICE = { auto: 'auto', required: 'any', none: 'none' } as const;

/**
 * The conversation in Anthropic's form: an assistant's tool calls are `tool_use` blocks after its text, and the
 * results that follow (consecutive `tool` messages) go back as ONE user message of `tool_result` blocks, as the
 * Messages API requires.
 */
function toWireMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const wire: MessageParam[] = [];
  let results: ToolResultBlockParam[] | undefined;
  for (const message of messages) {
    if (message.role === 'tool') {
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: message.toolCallId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      };
      if (results) results.push(block);
      else {
        results = [block];
        wire.push({ role: 'user', content: results });
      }
      continue;
    }
    results = undefined;
    if (message.role === 'user' || !message.toolCalls?.length) {
      wire.push({ role: message.role, content: message.content });
      continue;
    }
    const blocks: ContentBlockParam[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
    for (const toolCall of message.toolCalls) {
      // Anthropic's input is always an object; arguments another provider sent as unparsable text cannot be one.
      const input = isRecord(toolCall.args) ? toolCall.args : {};
      blocks.push({ type: 'tool_use', id: toolCall.id, name: toolCall.name, input });
    }
    wire.push({ role: 'assistant', content: blocks });
  }
  return wire;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ANTHROPIC_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

function classify(error: unknown): ProviderFailure {
  return classifySdkError(error, ANTHROPIC_ERRORS, (apiError) => ({
    detail: `${apiError.type ? `${apiError.type}: ` : ''}${apiError.apiMessage ?? apiError.message}`,
    // A 429 for a reached monthly spend limit will not pass until the limit resets.
    ...(apiError.errorCode === 'enforced_spend_limit_reached' ? { retryable: false } : {}),
  }));
}
