/**
 * Which user messages the bot is given: a message that is empty, too large, or binary junk is refused politely
 * with a reason, and the session goes on unchanged.
 */
import { MAX_USER_MESSAGE_BYTES } from './conversation-limits.js';

export function refuseUserMessage(text: string): string | undefined {
  if (typeof text !== 'string') return 'a message must be text';
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_USER_MESSAGE_BYTES) {
    return `the message is ${bytes.toLocaleString('en-US')} bytes; at most ${MAX_USER_MESSAGE_BYTES.toLocaleString('en-US')} are accepted`;
  }
  if (text.trim().length === 0) return 'the message is empty';
  let junk = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    // NUL and other C0 controls (but tab and line breaks), lone surrogates, and U+FFFD (what invalid UTF-8 decodes to).
    if (
      (code < 32 && code !== 9 && code !== 10 && code !== 13) ||
      code === 0xfffd ||
      (code >= 0xd800 && code <= 0xdfff)
    ) {
      junk++;
    }
  }
  if (text.includes('\u0000') || junk > Math.max(2, text.length / 20))
    return 'the message looks like binary data, not text';
  return undefined;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The message as the session keeps it: a lone surrogate (half of an emoji cut by a careless client) becomes U+FFFD.
 * Kept as it was, it is sent to the provider with every later turn, and a provider that refuses ill-formed text
 * would fail every one of them: the session could never go on.
 */
export function wellFormedMessage(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}
