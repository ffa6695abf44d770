/** boundedMessageLines: lines within the limit pass whole, longer ones are dropped and reported with their id. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundedMessageLines, type OversizedMessage, requestIdOf } from '../../src/serve/bounded-message-lines.js';

async function through(limit: number, chunks: string[]): Promise<{ lines: string[]; dropped: OversizedMessage[] }> {
  const dropped: OversizedMessage[] = [];
  const lines: string[] = [];
  const stream = Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(
    boundedMessageLines(limit, (message) => dropped.push(message)),
  );
  for await (const chunk of stream) lines.push((chunk as Buffer).toString());
  return { lines, dropped };
}

describe('boundedMessageLines', () => {
  it('passes each line within the limit as one chunk, whatever the chunks it came in', async () => {
    const { lines, dropped } = await through(10, ['ab', 'c\nde\n', 'fghij', '\nk']);
    expect(lines).toEqual(['abc\n', 'de\n', 'fghij\n', 'k']);
    expect(dropped).toEqual([]);
  });

  it('drops a line over the limit, reports its length and id, and goes on with the next', async () => {
    const long = `{"jsonrpc":"2.0","method":"x","params":{"p":"${'y'.repeat(100)}"},"id":42}`;
    const { lines, dropped } = await through(50, [
      long.slice(0, 30),
      long.slice(30, 90),
      `${long.slice(90)}\n{"id":1}\n`,
    ]);
    expect(lines).toEqual(['{"id":1}\n']);
    expect(dropped).toEqual([{ bytes: long.length, id: 42 }]);
  });

  it('reports a line over the limit that the input ends in', async () => {
    const { lines, dropped } = await through(5, ['ok\n', '1234567']);
    expect(lines).toEqual(['ok\n']);
    expect(dropped).toEqual([{ bytes: 7, id: null }]);
  });
});

describe('requestIdOf', () => {
  it('reads the id as the first member (after jsonrpc) or the last one', () => {
    expect(requestIdOf('{"jsonrpc":"2.0","id":"a-1","method":"m","params":{"p":"', '')).toBe('a-1');
    expect(requestIdOf('{ "id" : 7 , "method"', '')).toBe(7);
    expect(requestIdOf('{"method":"m","params":{"p":"', 'xxx"},"jsonrpc":"2.0","id":9}\r')).toBe(9);
  });

  it('does not take a nested id for the request', () => {
    expect(requestIdOf('{"method":"m","params":{"id":5,"p":"', 'xx","q":{"id":6}}}')).toBeNull();
    expect(requestIdOf('{"method":"notifications/x","params":{"p":"', 'xx"}}')).toBeNull();
  });
});
