/**
 * Where strict JSON (RFC 8259) first goes wrong, for diagnostics with a line and column. `JSON.parse` messages
 * only sometimes carry a position on Node 20, and their wording changes between Node versions.
 *
 * Hand-written rather than `jsonc-parser`: that one reports a bad escape or a line break inside a string at the
 * string's first quote, and a stray word without saying whether a property name or a value was expected.
 */
import { MAX_NESTING_DEPTH, nestingMessage } from './nesting-depth.js';

export interface JsonSyntaxError {
  /** Where the problem is, as a character offset into the text; `positionAtOffset` gives line and column. */
  readonly offset: number;
  readonly message: string;
}

class SyntaxFailure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/**
 * The first syntax error of the text as strict JSON, or `undefined` when `JSON.parse` would accept it. Nesting
 * deeper than `MAX_NESTING_DEPTH` counts as an error: the readers after this one recurse per level.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let offset = 0;
  let depth = 0;

  const fail = (message: string): never => {
    throw new SyntaxFailure(offset, message);
  };
  const describeHere = (): string =>
    offset >= text.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(text[offset])}`;
  const skipWhitespace = (): void => {
    while (offset < text.length && ' \t\n\r'.includes(text[offset] ?? '')) offset++;
  };
  const expect = (character: string, context: string): void => {
    skipWhitespace();
    if (text[offset] !== character)
      fail(`expected '${character}' ${context}, found ${describeHere().replace('unexpected ', '')}`);
    offset++;
  };

  const readString = (): void => {
    offset++; // the opening quote
    while (offset < text.length) {
      const character = text[offset] ?? '';
      if (character === '"') {
        offset++;
        return;
      }
      if (character === '\\') {
        const escaped = text[offset + 1] ?? '';
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(offset + 2, offset + 6))) fail('invalid \\u escape in string');
          offset += 6;
        } else if (ESCAPES.has(escaped)) {
          offset += 2;
        } else {
          fail(`invalid escape sequence \\${escaped} in string`);
        }
      } else if (character.charCodeAt(0) < 0x20) {
        fail('unescaped control character (e.g. a line break) in string');
      } else {
        offset++;
      }
    }
    fail('unterminated string');
  };

  const readPropertyName = (): void => {
    skipWhitespace();
    if (text[offset] !== '"') fail(`expected a double-quoted property name, ${describeHere()}`);
    readString();
    expect(':', 'after a property name');
  };

  const readValue = (): void => {
    skipWhitespace();
    const character = text[offset];
    if (character === '{') {
      readContainer('}');
      return;
    }
    if (character === '[') {
      readContainer(']');
      return;
    }
    if (character === '"') {
      readString();
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, offset)) {
        offset += literal.length;
        return;
      }
    }
    NUMBER.lastIndex = offset;
    if (NUMBER.test(text)) {
      offset = NUMBER.lastIndex;
      return;
    }
    fail(`expected a value, ${describeHere()}`);
  };

  /** An object or array, from its opening bracket. */
  const readContainer = (closing: '}' | ']'): void => {
    const isObject = closing === '}';
    // Refused before recursing further, at the bracket that goes too deep: see nesting-depth.ts.
    if (depth >= MAX_NESTING_DEPTH) fail(nestingMessage());
    depth++;
    offset++;
    skipWhitespace();
    if (text[offset] === closing) {
      offset++;
      depth--;
      return;
    }
    for (;;) {
      if (isObject) readPropertyName();
      readValue();
      skipWhitespace();
      if (text[offset] === ',') {
        offset++;
        skipWhitespace();
        if (text[offset] === closing) fail(`trailing comma before ${closing}`);
        continue;
      }
      if (text[offset] === closing) {
        offset++;
        depth--;
        return;
      }
      fail(
        `expected ',' or '${closing}' after ${isObject ? 'a property value' : 'an array element'}, ${describeHere()}`,
      );
    }
  };

  try {
    readValue();
    skipWhitespace();
    if (offset < text.length) fail(`unexpected content after the JSON value: ${JSON.stringify(text[offset])}`);
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxFailure) return { offset: error.offset, message: error.message };
    throw error;
  }
}
