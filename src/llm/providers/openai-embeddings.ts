/**
 * Embeddings from any server speaking OpenAI's `/embeddings` API: OpenAI itself, Ollama's `/v1`, vLLM,
 * llama.cpp server, LM Studio, … Built on the `openai` SDK with its retries off, like the chat provider.
 */
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { rewordError, type WeftError } from '../../errors.js';
import { classifyOpenAIError, openAIConnection, type OpenAIConnectionOptions } from './openai-compatible.js';
import { throwIfAborted, toWeftError, type ProviderContext } from './provider-error.js';
import type { Embedder } from '../embedder.js';

export interface OpenAIEmbedderOptions extends Omit<OpenAIConnectionOptions, 'apiKey'> {
  /** Local servers need none; the SDK insists on one, so a placeholder is sent. */
  readonly apiKey?: string;
}

export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const { client, context } = openAIConnection({ ...options, apiKey: options.apiKey ?? 'none' });

  async function embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    throwIfAborted(signal, context);
    if (texts.length === 0) return [];
    let response: CreateEmbeddingResponse;
    try {
      response = await client.embeddings.create(
        // `float` explicitly: left out, the SDK asks for base64 and decodes whatever comes back as base64, and
        // servers that ignore the field (Ollama, several proxies) send floats, which it then silently turns into
        // vectors a quarter as long and meaningless.
        { model: options.model, input: texts, encoding_format: 'float' },
        signal ? { signal } : undefined,
      );
    } catch (error) {
      throw redact(toWeftError(classifyOpenAIError(error), error, context, signal), options.apiKey);
    }
    return vectorsOf(response, texts.length, context);
  }

  return { model: options.model, embed };
}

/** The vectors in input order, checked: one per input, each a list of numbers, all of one dimension. */
function vectorsOf(response: CreateEmbeddingResponse, count: number, context: ProviderContext): number[][] {
  const fail = (detail: string) => toWeftError({ kind: 'other', detail }, undefined, context);
  const data: unknown = (response as { data?: unknown }).data;
  if (!Array.isArray(data)) throw fail('the embeddings response has no "data" list');
  if (data.length !== count) throw fail(`asked for ${count} embeddings, the server returned ${data.length}`);
  const vectors = new Array<number[] | undefined>(count);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    // Servers answer in input order; `index` says so explicitly and wins when present.
    const index = typeof item.index === 'number' ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
      throw fail(`the embeddings response has a missing, repeated or out-of-range index ${String(item.index)}`);
    }
    vectors[index] = embeddingOf(item.embedding, index, fail);
  });
  const result = vectors.map((vector) => vector ?? []);
  const dimension = result[0]?.length ?? 0;
  const odd = result.findIndex((vector) => vector.length !== dimension);
  if (odd >= 0) {
    throw fail(
      `the server returned vectors of different dimensions in one response (${dimension} for input 1, ${result[odd]?.length ?? 0} for input ${odd + 1})`,
    );
  }
  return result;
}

function embeddingOf(embedding: unknown, index: number, fail: (detail: string) => WeftError): number[] {
  if (Array.isArray(embedding) && embedding.every((value) => typeof value === 'number')) return embedding as number[];
  // A server may send base64 (little-endian float32) even when asked for floats.
  if (typeof embedding === 'string') {
    const bytes = Uint8Array.from(Buffer.from(embedding, 'base64'));
    if (bytes.length % 4 === 0) return Array.from(new Float32Array(bytes.buffer));
  }
  throw fail(`embedding ${index + 1} in the response is neither a list of numbers nor base64 float32 data`);
}

/** A server may echo the key in its error text; it never reaches a message (or, then, the kept cause). */
function redact(error: WeftError, apiKey: string | undefined): WeftError {
  if (apiKey === undefined || apiKey.length < 8 || !error.message.includes(apiKey)) return error;
  return rewordError(error, error.message.split(apiKey).join('[redacted]'));
}
