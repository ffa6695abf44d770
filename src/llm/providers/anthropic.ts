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
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCall, ChatModel, ChatResult } from '../chat-model.js';
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

  async function generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
    throwIfAborted(signal, context);
    const body: MessageCreateParamsNonStreaming = {
      model: options.model,
      max_tokens: call.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      // TODO(issue 12): tool calls and results as tool_use / tool_result blocks.
      messages: call.messages.map((message) => ({
        role: message.role === 'assistant' ? 'assistant' : 'user',
        content: message.content,
      })),
    };
    // Anthropic takes the system prompt as a top-level field, not as a message.
    if (call.system !== undefined && call.system !== '') body.system = call.system;
    // `call.temperature` is not sent: the Messages API deprecated `temperature` and this SDK no longer has
    // the field, so sending it could turn a working call into a 400.
    // `call.json` is not forced through a structured-output mode: the prompt asks for JSON and the caller
    // parses, repairs and re-prompts, the same way for every provider.

    let message: Anthropic.Message;
    try {
      message = await client.messages.create(body, signal ? { signal } : undefined);
    } catch (error) {
      throw withoutSecrets(toWeftError(classify(error), error, context, signal), secrets);
    }

    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const usage = message.usage;
    return {
      text,
      usage: {
        // input_tokens excludes prompt-cache reads and writes; all of them are input the call consumed.
        inputTokens:
          usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
        outputTokens: usage.output_tokens,
      },
      model: message.model || options.model,
    };
  }

  return { id: options.id, kind: 'real', generate };
}

const ANTHROPIC_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

function classify(error: unknown): ProviderFailure {
  return classifySdkError(error, ANTHROPIC_ERRORS, (apiError) => ({
    detail: `${apiError.type ? `${apiError.type}: ` : ''}${apiError.apiMessage ?? apiError.message}`,
    // A 429 for a reached monthly spend limit will not pass until the limit resets.
    ...(apiError.errorCode === 'enforced_spend_limit_reached' ? { retryable: false } : {}),
  }));
}
