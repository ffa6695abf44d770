/** What the run page says when its live stream is refused, and whether it tries again (web/views/live-stream.js). */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { why } from '../../web/views/live-stream.js';

describe('why a live stream stopped', () => {
  it.each([
    [503, 'BUSY', true],
    [0, 'does not answer', true],
    [500, 'answered 500', true],
    [401, 'token is no longer valid', false],
    [404, 'no longer in the store', false],
  ])('%i: says %s, retries %s', (status, words, retry) => {
    const answer = why(status);
    expect(answer.message).toContain(words);
    expect(answer.retry).toBe(retry);
  });
});
