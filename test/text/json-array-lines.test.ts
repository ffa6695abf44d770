import { describe, expect, it } from 'vitest';
import { formatError } from '../../src/errors.js';
import { thrownError } from '../dialog/thrown-error.js';
import { parseProfiles } from '../../src/dialog/profiles.js';
import { jsonArrayElementLines } from '../../src/text/json-array-lines.js';

describe('jsonArrayElementLines', () => {
  it('finds where each top-level element starts, past strings that hold brackets, commas and quotes', () => {
    const text = '[\n  {"a": "x,]\\"["},\n  [1, 2],\n\n  3, "s", null\n]';
    expect(jsonArrayElementLines(text)).toEqual([2, 3, 5, 5, 5]);
    expect(jsonArrayElementLines('[]')).toEqual([]);
    expect(jsonArrayElementLines('[ ]')).toEqual([]);
  });
});

describe('a JSON array of profiles too large to locate every field', () => {
  it('gives each profile its line from the light scan, and a problem its element line', () => {
    const profile = { persona: 'p', user_needs: '- a need, '.padEnd(200, 'x') };
    const many = Array.from({ length: 12_000 }, () => profile);
    many[11_000] = { persona: 'p', user_needs: 'n', dialog_style: 'typo' } as never;
    const text = `[\n${many.map((entry) => JSON.stringify(entry)).join(',\n')}\n]`;
    expect(text.length).toBeGreaterThan(2_000_000);
    expect(formatError(thrownError(() => parseProfiles(text, 'big.json')))).toContain(
      'big.json:11002 [11000].dialog_style: unknown field "dialog_style"',
    );
    many[11_000] = profile;
    const profiles = parseProfiles(`[\n${many.map((entry) => JSON.stringify(entry)).join(',\n')}\n]`, 'big.json');
    expect(profiles).toHaveLength(12_000);
    expect(profiles[11_999]).toMatchObject({ id: '12000', line: 12_001 });
  });
});
