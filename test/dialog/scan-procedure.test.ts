/** scanProcedure: the calls a procedure's pseudocode makes, with what they assign and take, and what it assigns. */
import { describe, expect, it } from 'vitest';
import { scanProcedure } from '../../src/dialog/scan-procedure.js';

const refs = (text: string, apiNames: string[] = []) =>
  scanProcedure(text, { apiNames: new Set(apiNames) }).references.map((r) => [r.kind, r.name, r.outputs, r.inputs]);

describe('scanProcedure', () => {
  it('reads the assignment forms and the argument forms', () => {
    expect(
      refs(
        [
          '[a, b] = API.x([p, q])',
          'a, b = API_x(p, q)',
          '(c,) = ANSWER.y()',
          'd = ANSWER_y(p=q, r=order.id, n=3, s="text", t=None)',
          'if ok: e = API.x(f(g), [h])',
          'while not API.x(p) or not API.z(q):',
          'x == API.x()',
        ].join('\n'),
      ),
    ).toEqual([
      ['api', 'x', ['a', 'b'], ['p', 'q']],
      ['api', 'x', ['a', 'b'], ['p', 'q']],
      ['answer', 'y', ['c'], []],
      ['answer', 'y', ['d'], ['p', 'q', 'r', 'order', 'n', 's', 't']],
      ['api', 'x', ['e'], ['g', 'h']],
      ['api', 'x', [], ['p']],
      ['api', 'z', [], ['q']],
      ['api', 'x', [], []],
    ]);
  });

  it('skips comments and strings but not apostrophes in prose; bare calls only of known APIs', () => {
    expect(
      refs(
        [
          '# API.ghost() in a comment',
          'say(\'API.ghost()\') and """API.ghost()',
          'API.ghost()"""',
          "If the user's order is late, call API.track(order_id)",
          'book_table(x) and print(y)',
        ].join('\n'),
        ['book_table'],
      ),
    ).toEqual([
      ['api', 'track', [], ['order_id']],
      ['api', 'book_table', [], ['x']],
    ]);
  });

  it('takes the rest of the line as the arguments of an unclosed call, and lists every assignment', () => {
    const scan = scanProcedure('r = API.x(a, b\nc = 1\nfor i, j in pairs:\n    k = API.y(i)\n');
    expect(scan.references.map((r) => r.inputs)).toEqual([['a', 'b'], ['i']]);
    expect(scan.assignments.map((a) => a.name)).toEqual(['r', 'c', 'i', 'j', 'k']);
  });

  it('reads hostile lines in linear time: long blank runs, thousands of assignments and calls on one line', () => {
    // Each of these took seconds to minutes with backtracking regular expressions.
    expect(refs(`a${' '.repeat(50_000)}API.x()`)).toEqual([['api', 'x', [], []]]);
    expect(refs(`[a${' \t'.repeat(25_000)}] = API.x()`)).toEqual([['api', 'x', ['a'], []]]);
    const wide = scanProcedure(`${'a, '.repeat(30_000)}b = API.x(${'p, '.repeat(20_000)}q)`);
    expect(wide.assignments).toHaveLength(30_001);
    expect(wide.references[0]?.outputs.at(-1)).toBe('b');
    expect(wide.references[0]?.inputs).toEqual(['p', 'q']);
    expect(scanProcedure('[r] = API.x() '.repeat(7000)).references).toHaveLength(7000);
  });
});
