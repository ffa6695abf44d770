/**
 * How the sim's dialog roles pass details in plain text (sim-bot.ts, sim-user.ts): the simulated user writes them as
 * `name: value` pairs (`email: ada@example.com, order_id: A-1001`), the bot reads those and `name=value` back. A
 * value is the text up to the next `,`, `;`, ` and `, line end or pair; a value that would not survive that (it
 * holds a separator, a quote or `: `) is written as a JSON string literal, which the reader decodes. Names are
 * identifiers (`[A-Za-z_][\w-]*`), compared without case.
 */

/** A name, then `: ` (a colon and a space, so `https://…` and `12:30` are no pairs) or `=`. */
const PAIR_KEY = /(?<![\w.@/?&-])([A-Za-z_][\w-]{0,63})(?:[ \t]*:[ \t]+|[ \t]*=[ \t]*)/g;
const STRING_LITERAL = /"(?:[^"\\\n]|\\.)*"/y;
const SEPARATOR = /[,;\n]| and /i;
/** The longest unquoted value read; the rest of a longer run of text is not part of any value. */
const MAX_VALUE = 500;
const MAX_LITERAL = 10_000;
/** Names read from one text, at most: a person gives a few; thousands are junk, not worth the time. */
const MAX_PAIRS = 200;

/**
 * The `name: value` and `name=value` pairs of a text, in order (a later pair of the same name wins when the result
 * is folded into a map), from its first MAX_PAIRS names. Values are strings; a caller converts them to what a
 * schema wants (coerceToSchema).
 */
export function readDetailPairs(text: string): [name: string, value: string][] {
  const pairs: [string, string][] = [];
  const keys = new RegExp(PAIR_KEY.source, 'g');
  let match = keys.exec(text);
  for (let seen = 0; match !== null && seen < MAX_PAIRS; seen++) {
    const name = match[1]!;
    const start = match.index + match[0].length;
    if (text[start] === '"') {
      STRING_LITERAL.lastIndex = start;
      const literal = STRING_LITERAL.exec(text);
      const value = literal && literal[0].length <= MAX_LITERAL ? decodeLiteral(literal[0]) : undefined;
      if (literal && value !== undefined) {
        pairs.push([name, value]);
        keys.lastIndex = start + literal[0].length;
        match = keys.exec(text);
        continue;
      }
    }
    const window = text.slice(start, start + MAX_VALUE);
    const separator = window.search(SEPARATOR);
    keys.lastIndex = start;
    const next = keys.exec(text);
    const end = Math.min(separator < 0 ? window.length : separator, next ? next.index - start : window.length);
    const value = window
      .slice(0, end)
      .trim()
      .replace(/[.!?]+$/, '');
    if (value !== '') pairs.push([name, value]);
    match = next;
  }
  return pairs;
}

/** `name: value` as readDetailPairs reads it back (the value as text, JSON-quoted where it must be). */
export function formatDetail(name: string, value: unknown): string {
  return `${name}: ${formatDetailValue(value)}`;
}

function formatDetailValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value !== 'string') return JSON.stringify(safeJson(value));
  const plain =
    value !== '' &&
    value.length <= MAX_VALUE &&
    !/[",;\n\r]|:\s|=| and /i.test(value) &&
    value.trim() === value &&
    !/[.!?]$/.test(value);
  return plain ? value : JSON.stringify(value);
}

/** Objects and arrays travel as their JSON text inside a string (the bot parses it back when a schema wants one). */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    // Too deep or circular: nothing a user would say.
    return 'null';
  }
}

function decodeLiteral(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A value (text from a user, or any JSON from a tool result) as the property schema wants it, where it can be:
 * digits → integer or number, `true`/`yes` → boolean, JSON text → object or array, a number → its text. Anything
 * else is left as it is (the tool layer's argument check has the last word).
 */
export function coerceToSchema(value: unknown, schema: unknown): unknown {
  const type = schemaType(schema);
  if (typeof value === 'string') {
    const text = value.trim();
    switch (type) {
      case 'integer':
        return /^[+-]?\d{1,15}$/.test(text) ? Number(text) : value;
      case 'number':
        return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : value;
      case 'boolean':
        if (/^(true|yes)$/i.test(text)) return true;
        if (/^(false|no)$/i.test(text)) return false;
        return value;
      case 'object':
      case 'array':
        try {
          const parsed: unknown = JSON.parse(text);
          return (type === 'array') === Array.isArray(parsed) && typeof parsed === 'object' ? parsed : value;
        } catch {
          return value;
        }
      default:
        return value;
    }
  }
  if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return value;
}

function schemaType(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const type = (schema as Record<string, unknown>)['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((item): item is string => typeof item === 'string' && item !== 'null');
  return undefined;
}

const REQUEST_WORDS =
  /\b(could you|can you|would you|will you|please (?:give|provide|tell|share|send|confirm|enter)|provide|give me|tell me|let me know|send me|i need your|may i have)\b/i;
const CANNOT_HELP = /\b(cannot|can't|can not|unable to|not able to) (help|assist|do that|continue|go on)\b/i;

/** Whether a bot's message asks the user for something: a question mark or a request. */
export function asksForSomething(text: string): boolean {
  return text.includes('?') || REQUEST_WORDS.test(text);
}

/** Whether a bot's message says it cannot help (the simulated user then leaves). */
export function saysCannotHelp(text: string): boolean {
  return CANNOT_HELP.test(text);
}

/** Whether a text names a detail: the name, or the name with `_` as spaces, as whole words, in any case. */
export function mentions(text: string, name: string): boolean {
  const variants = new Set([name, name.replaceAll('_', ' ')]);
  const lower = text.toLowerCase();
  for (const variant of variants) {
    const needle = variant.toLowerCase();
    if (needle === '') continue;
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
      const before = lower[at - 1];
      const after = lower[at + needle.length];
      if (!isWordChar(before) && !isWordChar(after)) return true;
    }
  }
  return false;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}_]/u.test(char);
}

/** `a`, `a and b`, `a, b and c`. */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
