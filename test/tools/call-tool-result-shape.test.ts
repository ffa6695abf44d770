import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../src/tools/call-tool.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';

/** What a result must come back as: its JSON round trip, cut to `maxBytes` of JSON text with a note when larger. */
function expected(raw: unknown, maxBytes: number): { result: unknown; truncated?: true } {
  const text = JSON.stringify(raw);
  if (text === undefined) return { result: null };
  const size = Buffer.byteLength(text);
  if (size <= maxBytes) return { result: JSON.parse(text) };
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return { result: `${head}\n[truncated: ${Buffer.byteLength(head)} of ${size} bytes]`, truncated: true };
}

function answering(raw: unknown): Tool {
  return {
    name: 'probe',
    description: 'returns what it is given',
    inputSchema: { type: 'object' },
    source: 'test',
    call: async () => raw as JsonValue,
  };
}

describe("callTool's result", () => {
  // Numbers, strings and flags skip the JSON round trip; the answer must be the round trip's, size cap included.
  it('is the JSON round trip of a number, string, flag or null, cut at any size cap', async () => {
    const primitive = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, 5e-324),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom('\ud800', 'a\udfff', '"\\\n\u0000', ''),
      fc.boolean(),
      fc.constant(null),
    );
    await fc.assert(
      fc.asyncProperty(primitive, fc.integer({ min: 1, max: 300 }), async (raw, maxBytes) => {
        const outcome = await callTool(answering(raw), {}, { maxResultBytes: maxBytes });
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const want = expected(raw, maxBytes);
        expect(Object.is(outcome.result, want.result)).toBe(true);
        expect(outcome.truncated).toBe(want.truncated);
      }),
      { numRuns: 2000 },
    );
  });

  it('is an object or array as its JSON round trip (a Date as its string, undefined members dropped)', async () => {
    const at = new Date(0);
    const outcome = await callTool(answering({ at, gone: undefined, list: [undefined, 1] }), {});
    expect(outcome).toMatchObject({ ok: true, result: { at: at.toISOString(), list: [null, 1] } });
    expect(outcome.ok && Object.hasOwn(outcome.result as object, 'gone')).toBe(false);
  });
});
