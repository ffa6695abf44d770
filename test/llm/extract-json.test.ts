import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractJsonCandidates, parseJsonLoose, parseJsonValues } from '../../src/llm/extract-json.js';

describe('extractJsonCandidates', () => {
  it('puts ```json fences first, then balanced spans in order', () => {
    const text = 'First [1, 2], then ```json\n{"fenced": true}\n``` and {"b": 2}';
    expect(extractJsonCandidates(text)).toEqual(['{"fenced": true}', '[1, 2]', '{"b": 2}']);
  });

  it('respects brackets inside strings and escaped quotes', () => {
    const text = 'x {"a": "}", "b": "\\"]{"} y';
    expect(extractJsonCandidates(text)).toEqual(['{"a": "}", "b": "\\"]{"}']);
  });

  it('finds several top-level spans and keeps nested ones inside their parent', () => {
    expect(extractJsonCandidates('{"a": {"b": [1]}} and [{"c": 3}]')).toEqual(['{"a": {"b": [1]}}', '[{"c": 3}]']);
  });

  it('skips an unclosed opener but still finds the spans after it', () => {
    expect(extractJsonCandidates('Use { to open. Answer: {"ok": 1}')).toEqual(['{"ok": 1}']);
  });

  it('skips mismatched brackets', () => {
    expect(extractJsonCandidates('(see [1}) then {"a": 1}')).toEqual(['{"a": 1}']);
  });

  it('accepts an unterminated fence (truncated output)', () => {
    expect(extractJsonCandidates('```json\n{"a": 1')).toEqual(['{"a": 1']);
  });

  it('drops duplicates', () => {
    expect(extractJsonCandidates('```json\n{"a":1}\n```')).toEqual(['{"a":1}']);
  });

  it('returns nothing for prose', () => {
    expect(extractJsonCandidates('no json here, just "quotes" and (parens)')).toEqual([]);
  });
});

describe('parseJsonLoose', () => {
  it('parses plain JSON, including primitives', () => {
    expect(parseJsonLoose(' {"a": 1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonLoose('42')).toEqual({ ok: true, value: 42 });
  });

  it('extracts JSON from prose and fences', () => {
    expect(parseJsonLoose('Sure! Here it is:\n```json\n{"a": [1, 2]}\n```\nHope that helps.')).toEqual({
      ok: true,
      value: { a: [1, 2] },
    });
  });

  it('repairs trailing commas, single quotes and unquoted keys', () => {
    expect(parseJsonLoose("Result: {a: 'x', b: [1, 2,],}")).toEqual({ ok: true, value: { a: 'x', b: [1, 2] } });
  });

  it('repairs truncated JSON after prose', () => {
    expect(parseJsonLoose('Here: {"a": [1, 2')).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it('prefers a candidate that parses as is over one that needs repair', () => {
    expect(parseJsonLoose('first {a: 1} then {"b": 2}')).toEqual({ ok: true, value: { b: 2 } });
  });

  it('never turns prose into a string value', () => {
    const result = parseJsonLoose('Sorry, I cannot do that.');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/no JSON/);
  });

  it('reports an incomplete JSON text', () => {
    const result = parseJsonLoose('{"a": "unterminated');
    // jsonrepair can close it: that is a success.
    expect(result).toEqual({ ok: true, value: { a: 'unterminated' } });
  });
});

describe('parseJsonValues', () => {
  it('lists strict values first, then repaired ones, without duplicates', () => {
    const values = parseJsonValues('{a: 1} {"b": 2} {"b": 2} [3]');
    expect(values.map((v) => [v.source, v.value])).toEqual([
      ['candidate', { b: 2 }],
      ['candidate', [3]],
      ['repaired', { a: 1 }],
    ]);
  });

  it('returns only the whole value when the text is JSON', () => {
    expect(parseJsonValues('[{"a": 1}, {"b": 2}]')).toEqual([
      { value: [{ a: 1 }, { b: 2 }], source: 'whole', text: '[{"a": 1}, {"b": 2}]' },
    ]);
  });
});

describe('properties', () => {
  // No quotes either: `"` + `{}` + `"` is itself a JSON string, which the whole-text rule rightly takes as one.
  const prose = fc.string({ maxLength: 60 }).filter((text) => !/[{}[\]`"]/.test(text));
  const object = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });

  it('a JSON object embedded in prose round-trips', () => {
    fc.assert(
      fc.property(prose, object, prose, fc.constantFrom(0, 2), (before, value, after, indent) => {
        const expected = JSON.parse(JSON.stringify(value)) as unknown;
        const result = parseJsonLoose(`${before}${JSON.stringify(value, null, indent)}${after}`);
        expect(result).toEqual({ ok: true, value: expected });
      }),
      { numRuns: 300 },
    );
  });

  it('a fenced JSON object round-trips even with brackets in the prose', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }).filter((t) => !t.includes('`')),
        object,
        (before, value) => {
          const expected = JSON.parse(JSON.stringify(value)) as unknown;
          expect(parseJsonLoose(`${before}\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\`\n`)).toEqual({
            ok: true,
            value: expected,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('every extracted candidate is a substring of the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        for (const candidate of extractJsonCandidates(text)) expect(text).toContain(candidate);
      }),
    );
  });
});
