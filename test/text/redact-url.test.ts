import { describe, expect, it } from 'vitest';
import { redactModelSpec, requestedModelName } from '../../src/llm/model-spec.js';
import { costOf, DEFAULT_PRICES, mergePrices } from '../../src/llm/pricing.js';
import { splitBaseUrl } from '../../src/llm/providers/base-url.js';
import { mayHaveRedactedCredentials, redactUrl } from '../../src/text/redact-url.js';

describe('redacting credentials in URLs and model specs', () => {
  it('removes a URL password and secret query parameters wherever the URL stands in the text', () => {
    expect(redactModelSpec('openai-compatible:http://user:sk-1@host:8080/v1#m')).toBe(
      'openai-compatible:http://user@host:8080/v1#m',
    );
    expect(redactModelSpec('openai-compatible:https://host/v1?api-key=abc&x=1#m')).toBe(
      'openai-compatible:https://host/v1?api-key=***&x=1#m',
    );
    expect(redactModelSpec('openai-compatible:https://host/v1?key=abc#m')).toBe(
      'openai-compatible:https://host/v1?key=***#m',
    );
    expect(redactModelSpec('openai:gpt-4o-mini')).toBe('openai:gpt-4o-mini');
    expect(redactUrl('see http://a:p%40ss@h/ and https://b:q@h2/').secrets).toEqual(['p%40ss', 'p@ss', 'q']);
    // A Postgres sslkey is a file path, not a secret.
    expect(redactUrl('postgres://db/weft?sslkey=/etc/k.pem').display).toBe('postgres://db/weft?sslkey=/etc/k.pem');
  });

  it('moves URL credentials into a Basic Authorization header', () => {
    expect(splitBaseUrl('http://user:p%40ss@host:8080/v1')).toEqual({
      baseURL: 'http://host:8080/v1',
      authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
      secrets: ['p%40ss', 'p@ss', Buffer.from('user:p@ss').toString('base64')],
    });
    expect(splitBaseUrl('http://host/v1')).toEqual({ baseURL: 'http://host/v1', secrets: [] });
  });
});

describe('pricing by the requested model', () => {
  it('names the model a spec asks for', () => {
    expect(requestedModelName('openai-compatible:http://127.0.0.1:8080/v1#mymodel')).toBe('mymodel');
    expect(requestedModelName('ollama:llama3.2:1b')).toBe('llama3.2:1b');
    expect(requestedModelName('local:m.gguf')).toBeUndefined();
    expect(requestedModelName('not a spec')).toBeUndefined();
  });

  it('uses the first name that has a price', () => {
    const prices = mergePrices(DEFAULT_PRICES, { mymodel: { inputPerMillion: 1, outputPerMillion: 2 } });
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000 };
    expect(costOf(['mymodel', '/models/mymodel-Q4_K_M.gguf'], usage, prices)).toBe(3);
    expect(costOf([undefined, 'gpt-4o-mini-2024-07-18'], usage, prices)).toBeCloseTo(0.75, 9);
    expect(costOf('/models/mymodel-Q4_K_M.gguf', usage, prices)).toBe(0);
  });
});

describe('mayHaveRedactedCredentials', () => {
  it('tells a redacted spec (a URL user kept, a secret parameter starred) from one that never had credentials', () => {
    expect(mayHaveRedactedCredentials(redactUrl('openai-compatible:http://user:KEY@host/v1#m').display)).toBe(true);
    expect(mayHaveRedactedCredentials(redactUrl('openai-compatible:http://host/v1?api_key=KEY#m').display)).toBe(true);
    expect(mayHaveRedactedCredentials('openai-compatible:http://host:8080/v1#m')).toBe(false);
    expect(mayHaveRedactedCredentials('openai:gpt-4o-mini')).toBe(false);
  });
});
