// The distillation suite's own module tools (examples/distill-suite): arithmetic, strings, lists and three fixed
// lookup tables. Plain tool definitions with JSON Schema arguments, so the module needs no import and loads in any
// Node. Every tool is pure and idempotent: a test case can be re-run at will.
const num = { type: 'number' };
const text = { type: 'string', maxLength: 100000 };
const numbers = { type: 'array', items: num, maxItems: 100000 };
const pure = (description, properties, execute) => ({
  description,
  inputSchema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  idempotent: true,
  execute,
});

export const add = pure('a + b', { a: num, b: num }, ({ a, b }) => a + b);
export const subtract = pure('a - b', { a: num, b: num }, ({ a, b }) => a - b);
export const multiply = pure('a × b', { a: num, b: num }, ({ a, b }) => a * b);
export const divide = pure('a ÷ b (an error when b is 0)', { a: num, b: num }, ({ a, b }) => {
  if (b === 0) throw new Error('division by zero');
  return a / b;
});
export const modulo = pure('the remainder of a ÷ b (an error when b is 0)', { a: num, b: num }, ({ a, b }) => {
  if (b === 0) throw new Error('division by zero');
  return a % b;
});
export const round = pure(
  'value rounded to `digits` decimal places (half away from zero)',
  { value: num, digits: { type: 'integer', minimum: 0, maximum: 10 } },
  ({ value, digits }) => {
    const scale = 10 ** digits;
    return (Math.sign(value) * Math.round(Math.abs(value) * scale + Number.EPSILON)) / scale;
  },
);

export const upper = pure('the text in upper case', { text }, ({ text }) => text.toUpperCase());
export const lower = pure('the text in lower case', { text }, ({ text }) => text.toLowerCase());
export const trim = pure('the text without leading and trailing spaces', { text }, ({ text }) => text.trim());
export const reverse = pure('the text backwards', { text }, ({ text }) => [...text].reverse().join(''));
export const length = pure('the number of characters of the text', { text }, ({ text }) => [...text].length);
export const capitalize = pure(
  'the text with its first letter in upper case and the rest in lower case',
  { text },
  ({ text }) => (text.length === 0 ? text : text[0].toUpperCase() + text.slice(1).toLowerCase()),
);
export const replace_all = pure(
  'the text with every occurrence of `find` replaced by `replacement`',
  { text, find: { type: 'string', minLength: 1 }, replacement: { type: 'string' } },
  ({ text, find, replacement }) => text.split(find).join(replacement),
);
export const split = pure(
  'the text split at every `separator`, empty parts dropped',
  { text, separator: { type: 'string', minLength: 1 } },
  ({ text, separator }) => text.split(separator).filter((part) => part !== ''),
);
export const join = pure(
  'the items joined with `separator` between them',
  { items: { type: 'array', items: { type: 'string' } }, separator: { type: 'string' } },
  ({ items, separator }) => items.join(separator),
);

export const sum = pure('the sum of the numbers (0 for none)', { items: numbers }, ({ items }) =>
  items.reduce((total, value) => total + value, 0),
);
export const max = pure('the largest of the numbers (an error for none)', { items: numbers }, ({ items }) => {
  if (items.length === 0) throw new Error('max of an empty list');
  return Math.max(...items);
});
export const min = pure('the smallest of the numbers (an error for none)', { items: numbers }, ({ items }) => {
  if (items.length === 0) throw new Error('min of an empty list');
  return Math.min(...items);
});
export const sort = pure(
  'the numbers in ascending order (descending when `descending` is true)',
  { items: numbers, descending: { type: 'boolean' } },
  ({ items, descending }) => [...items].sort((a, b) => (descending ? b - a : a - b)),
);
export const unique = pure('the numbers without repeats, in first-seen order', { items: numbers }, ({ items }) => [
  ...new Set(items),
]);

const PRICES = { 'PEN-01': 1.5, 'NB-A5': 3.25, 'MUG-02': 8, 'BAG-10': 24.99, 'LAMP-3': 39.9 };
const RATES = { EUR: 1, USD: 1.08, GBP: 0.86, JPY: 162, CHF: 0.95 };
const VAT = { DE: 0.19, FR: 0.2, NL: 0.21, LU: 0.17, US: 0 };
const lookup = (table, key, what) => {
  if (!Object.hasOwn(table, key)) throw new Error(`unknown ${what} "${key}"; known: ${Object.keys(table).join(', ')}`);
  return table[key];
};
export const catalog_price = pure(
  'the unit price in EUR of a catalogue article by its SKU',
  { sku: { type: 'string' } },
  ({ sku }) => lookup(PRICES, sku, 'SKU'),
);
export const exchange_rate = pure(
  'how many units of `to` one unit of `from` buys (currencies EUR, USD, GBP, JPY, CHF; fixed rates)',
  { from: { type: 'string' }, to: { type: 'string' } },
  ({ from, to }) => lookup(RATES, to, 'currency') / lookup(RATES, from, 'currency'),
);
export const vat_rate = pure(
  'the standard VAT rate of a country by ISO code (DE, FR, NL, LU, US), e.g. 0.19',
  { country: { type: 'string' } },
  ({ country }) => lookup(VAT, country, 'country'),
);
