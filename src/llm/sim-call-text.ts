/**
 * Reading a call's prompt, for the `sim:` model's responders: the user messages, the last one, and the text
 * inside a `<name>…</name>` tag. Generic: which tags mean what is each engine's business (its responders).
 */
import type { ChatCall } from './chat-model.js';

/** The user messages of a call, joined by newlines. */
export function simUserText(call: ChatCall): string {
  return call.messages
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
}

/** The last user message of a call, or '' when it has none. */
export function simLastUserMessage(call: ChatCall): string {
  return [...call.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
}

/**
 * The text inside `<name>…</name>` in the user messages (the whole prompt as a fallback): from the first
 * opening tag to the first closing tag after it, or to the last one when `toLast` (an output under review
 * may itself mention the tag).
 */
export function simTagContent(call: ChatCall, name: string, toLast = false): string | undefined {
  return (
    between(simUserText(call), name, toLast) ??
    between([call.system ?? '', ...call.messages.map((m) => m.content)].join('\n'), name, toLast)
  );
}

function between(text: string, name: string, toLast: boolean): string | undefined {
  const open = `<${name}>`;
  const close = `</${name}>`;
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const end = toLast ? text.lastIndexOf(close) : text.indexOf(close, start + open.length);
  if (end < start + open.length) return undefined;
  return text
    .slice(start + open.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}
