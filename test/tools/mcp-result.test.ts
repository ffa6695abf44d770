import { describe, expect, it } from 'vitest';
import { MAX_ERROR_TEXT, mcpErrorText, mcpResultValue } from '../../src/tools/mcp-result.js';

describe('mcpResultValue', () => {
  it('prefers structured content', () => {
    expect(mcpResultValue({ structuredContent: { sum: 3 }, content: [{ type: 'text', text: '3' }] })).toEqual({
      sum: 3,
    });
  });

  it('keeps a JSON text part as text, and joins several parts', () => {
    expect(mcpResultValue({ content: [{ type: 'text', text: '42' }] })).toBe('42');
    expect(
      mcpResultValue({
        content: [
          { type: 'text', text: 'one' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'two' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
          { type: 'audio', mimeType: 'audio/wav', data: 'AAA=' },
        ],
      }),
    ).toBe('one\n\ntwo\n\n[resource file:///b.bin, 3 bytes]\n\n[resource file:///c (c)]\n\n[audio audio/wav, 2 bytes]');
  });

  it('no content is null; an old server’s toolResult is used as it is', () => {
    expect(mcpResultValue({ content: [] })).toBeNull();
    expect(mcpResultValue({})).toBeNull();
    expect(mcpResultValue({ toolResult: { ok: 1 } })).toEqual({ ok: 1 });
  });
});

describe('mcpErrorText', () => {
  it('is the server’s text, cut when huge, and says so when there is none', () => {
    expect(mcpErrorText({ isError: true, content: [{ type: 'text', text: ' no such file ' }] })).toBe('no such file');
    expect(mcpErrorText({ isError: true, content: [] })).toBe('the tool reported an error without a message');
    const long = mcpErrorText({ isError: true, content: [{ type: 'text', text: 'x'.repeat(10_000) }] });
    expect(long.startsWith('x'.repeat(MAX_ERROR_TEXT))).toBe(true);
    expect(long).toContain('[10000 characters]');
    expect(long.length).toBeLessThan(MAX_ERROR_TEXT + 40);
  });
});
