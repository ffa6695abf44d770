/**
 * Finds the first JSON syntax error and its offset. `JSON.parse` messages only sometimes carry a
 * position (and their wording changes between Node versions), so the check is done here instead.
 */
export interface JsonSyntaxError {
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

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let offset = 0;

  const fail = (message: string, at = offset): never => {
    throw new SyntaxFailure(at, message);
  };
  const describeHere = (): string =>
    offset >= text.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(text[offset])}`;
  const skipWhitespace = (): void => {
    while (offset < text.length && ' \t\n\r'.includes(text[offset] ?? '')) offset++;
  };
  const expect = (character: string, context: string): void => {
    skipWhitespace();
    if (text[offset] !== character) fail(`expected '${character}' ${context}, found ${describeHere().replace('unexpected ', '')}`);
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

  const readValue = (): void => {
    skipWhitespace();
    const character = text[offset];
    if (character === '{') return readObject();
    if (character === '[') return readArray();
    if (character === '"') return readString();
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

  const readObject = (): void => {
    offset++;
    skipWhitespace();
    if (text[offset] === '}') {
      offset++;
      return;
    }
    for (;;) {
      skipWhitespace();
      if (text[offset] !== '"') fail(`expected a double-quoted property name, ${describeHere()}`);
      readString();
      expect(':', 'after a property name');
      readValue();
      skipWhitespace();
      if (text[offset] === ',') {
        offset++;
        continue;
      }
      if (text[offset] === '}') {
        offset++;
        return;
      }
      fail(`expected ',' or '}' after a property value, ${describeHere()}`);
    }
  };

  const readArray = (): void => {
    offset++;
    skipWhitespace();
    if (text[offset] === ']') {
      offset++;
      return;
    }
    for (;;) {
      readValue();
      skipWhitespace();
      if (text[offset] === ',') {
        offset++;
        continue;
      }
      if (text[offset] === ']') {
        offset++;
        return;
      }
      fail(`expected ',' or ']' after an array element, ${describeHere()}`);
    }
  };

  try {
    readValue();
    skipWhitespace();
    if (offset < text.length) fail(`unexpected content after the JSON value: ${JSON.stringify(text[offset])}`);
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxFailure) return { offset: error.offset, message: error.message };
    // Nesting deep enough to overflow the stack: report it rather than crash the caller.
    if (error instanceof RangeError) return { offset, message: 'JSON nested too deeply' };
    throw error;
  }
}
