import { describe, expect, it } from 'vitest';
import { jsonLines } from '../../src/text/json-lines.js';

describe('jsonLines', () => {
  it('numbers lines as an editor does, skipping blank ones, a BOM and CRs', () => {
    const lines = jsonLines('\uFEFF{"a":1}\r\n\n   \n[2]\n');
    expect(lines).toEqual([
      { ok: true, line: 1, text: '{"a":1}', value: { a: 1 } },
      { ok: true, line: 4, text: '[2]', value: [2] },
    ]);
  });

  it('reports a line that is not JSON with the column of the problem, and goes on', () => {
    const [bad, good] = jsonLines('{"a": 1,, "b": 2}\n3');
    expect(bad).toMatchObject({ ok: false, line: 1, column: 9 });
    expect(good).toEqual({ ok: true, line: 2, text: '3', value: 3 });
  });
});
