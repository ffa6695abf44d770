/**
 * Result conditions (`api.field op value`): what parses and what is refused with a reason, how each is written back,
 * and how a recorded API result is judged against one.
 */
import { describe, expect, it } from 'vitest';
import {
  conditionText,
  judgeCondition,
  parseResultCondition,
  type ResultCondition,
} from '../../src/text/result-condition.js';

function condition(text: string): ResultCondition {
  const parsed = parseResultCondition(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.condition;
}

function error(text: string): string {
  const parsed = parseResultCondition(text);
  if (!('error' in parsed)) throw new Error(`parsed: ${JSON.stringify(parsed.condition)}`);
  return parsed.error;
}

const holds = (text: string, result: unknown) => judgeCondition(condition(text), result).holds;

describe('parseResultCondition', () => {
  it('reads the API, the field path, the operator and a JSON-like value', () => {
    expect(condition('checkAvailability.is_air == "true"')).toEqual({
      api: 'checkAvailability',
      field: ['is_air'],
      op: '==',
      value: 'true',
    });
    expect(condition('quote.price.total<=500')).toEqual({
      api: 'quote',
      field: ['price', 'total'],
      op: '<=',
      value: 500,
    });
    expect(condition("order.status != 'cancelled'")).toMatchObject({ op: '!=', value: 'cancelled' });
    expect(condition('check.ok == True')).toMatchObject({ value: true });
    expect(condition('check.note == None')).toMatchObject({ value: null });
    expect(condition('check.count > -1.5e2')).toMatchObject({ op: '>', value: -150 });
    expect(condition('check.x == "a, \\"b\\""')).toMatchObject({ value: 'a, "b"' });
  });

  it('writes a condition back with text in double quotes, with or without its API', () => {
    const read = condition("order.status != 'cancelled'");
    expect(conditionText(read)).toBe('order.status != "cancelled"');
    expect(conditionText(read, { withApi: false })).toBe('status != "cancelled"');
  });

  it('refuses a wrong operator, a missing field, a bare word and a non-number compared by order', () => {
    expect(error('check.ok = "yes"')).toBe('"=" is not an operator; use ==, !=, <, <=, > or >=');
    expect(error('check.ok === 1')).toBe('"===" is not an operator; use ==, !=, <, <=, > or >=');
    expect(error('check.n => 1')).toBe('"=>" is not an operator; use ==, !=, <, <=, > or >=');
    expect(error('check == 1')).toBe(
      '"check" names no field of a result: write check.<field> (a field of its response)',
    );
    expect(error('check.status == delivered')).toBe(
      '"delivered" is not a value: quote text ("delivered"), or write a number, true, false or null',
    );
    expect(error('check.n < "ten"')).toBe('< compares numbers, got "ten"');
    expect(error('check.ok ==')).toBe('no value after the operator: e.g. "yes", 3 or true');
    expect(error('2check.ok == 1')).toBe(
      '"2check" is not an API name: letters, digits and _, not starting with a digit',
    );
    expect(error('check.a..b == 1')).toBe('"check.a..b" has an empty field name');
    expect(error('check.ok == "open')).toMatch(/is not one quoted text/);
    expect(error(`check.ok == "${'x'.repeat(1_000)}"`)).toMatch(/at most 1000/);
  });
});

describe('judgeCondition', () => {
  it('compares text with a number or true/false as text, and other values as JSON', () => {
    expect(holds('c.is_air == "true"', { is_air: 'true' })).toBe(true);
    expect(holds('c.is_air == "true"', { is_air: true })).toBe(true);
    expect(holds('c.is_air == true', { is_air: 'true' })).toBe(true);
    expect(holds('c.is_air == "true"', { is_air: 'false' })).toBe(false);
    expect(holds('c.is_air == "true"', { is_air: 'True' })).toBe(false);
    expect(holds('c.n == 2', { n: '2' })).toBe(true);
    expect(holds('c.n == 2', { n: 2.5 })).toBe(false);
    expect(holds('c.n == null', { n: null })).toBe(true);
    expect(holds('c.n != "x"', { n: 'y' })).toBe(true);
    expect(holds('c.list == "a"', { list: ['a'] })).toBe(false);
  });

  it('orders numbers, and text that is a decimal number; anything else fails', () => {
    expect(holds('c.seats >= 2', { seats: 2 })).toBe(true);
    expect(holds('c.seats >= 2', { seats: ' 3 ' })).toBe(true);
    expect(holds('c.seats < 2', { seats: 3 })).toBe(false);
    expect(holds('c.seats > 0', { seats: 'many' })).toBe(false);
    expect(holds('c.seats > 0', { seats: true })).toBe(false);
  });

  it('a missing field fails every condition, != included, and says it was not found', () => {
    expect(judgeCondition(condition('c.ok != "no"'), { other: 1 })).toEqual({ holds: false, found: false });
    expect(judgeCondition(condition('c.ok == "no"'), 'plain text')).toEqual({ holds: false, found: false });
    expect(judgeCondition(condition('c.ok == "no"'), null)).toEqual({ holds: false, found: false });
    // An inherited property is not a field of the result.
    expect(judgeCondition(condition('c.constructor != 1'), {})).toEqual({ holds: false, found: false });
  });

  it('reads nested fields, list items, and a result kept as JSON text', () => {
    expect(judgeCondition(condition('c.flight.seats > 1'), { flight: { seats: 4 } })).toEqual({
      holds: true,
      found: true,
      actual: 4,
    });
    expect(holds('c.items.1.ok == true', { items: [{ ok: false }, { ok: true }] })).toBe(true);
    expect(holds('c.items.2.ok == true', { items: [{ ok: true }] })).toBe(false);
    expect(holds('c.is_air == "true"', '{"is_air": "true"}')).toBe(true);
  });
});
