/**
 * What of a bot's streamed decision the user may see as it arrives. The bot's text can open with `Thought: …` and
 * put the reply after `Response: …` (split-thought.ts): only the reply is shown, so the reasoning is held back until
 * the marker comes. A decision that turns out not to be the turn's reply (a tool call, a proposal a controller
 * refuses, a try a retry throws away) is withdrawn with a `discard`; at the end of the turn `settle` makes what was
 * shown equal to the recorded reply. So: the deltas a listener kept, minus what it was told to discard, are the
 * reply, exactly.
 */
import type { StreamEvent } from '../llm/chat-model.js';
import { MAX_BOT_TEXT_CHARS } from './conversation-limits.js';

export interface ReplyStream {
  /** Hears one event of the model call of the current decision. */
  hear(event: StreamEvent): void;
  /** The text shown for the current decision (empty after a withdrawal). */
  readonly shown: string;
  /** The current decision will not be the reply: take back what it showed, and start the next one afresh. */
  withdraw(): void;
  /** The turn's reply is `reply`: show what is missing of it, or take back a mismatch and show it whole. */
  settle(reply: string): void;
}

/** Held raw text per decision: enough to find the marker and fill the largest reply a turn records. */
const MAX_HELD_CHARS = MAX_BOT_TEXT_CHARS * 2;

export function createReplyStream(emit: (event: StreamEvent) => void): ReplyStream {
  let raw = '';
  let shown = '';
  const show = (visible: string): void => {
    if (visible === shown) return;
    if (visible.startsWith(shown)) {
      emit({ kind: 'delta', text: visible.slice(shown.length) });
    } else {
      if (shown !== '') emit({ kind: 'discard', chars: shown.length });
      if (visible !== '') emit({ kind: 'delta', text: visible });
    }
    shown = visible;
  };
  return {
    hear(event) {
      if (event.kind === 'discard') {
        raw = '';
        show('');
        return;
      }
      if (raw.length >= MAX_HELD_CHARS) return;
      raw += event.text;
      show(visibleReply(raw));
    },
    get shown() {
      return shown;
    },
    withdraw() {
      raw = '';
      show('');
    },
    settle(reply) {
      show(reply);
      raw = '';
      shown = '';
    },
  };
}

const THOUGHT = 'thought:';
const RESPONSE = 'response:';

/**
 * The part of a reply still arriving that the user may see now: after a `Response:` marker if the text has one,
 * nothing while it may still be the start of a `Thought:` (or of a leading `Response:`), else the text (without a
 * last line that may be the start of a `Response:`). Trailing
 * white space is held until more text follows, since the recorded reply is trimmed; at most MAX_BOT_TEXT_CHARS, as
 * the recorded reply is cut there.
 */
export function visibleReply(raw: string): string {
  const text = raw.trimStart();
  const head = text
    .slice(0, THOUGHT.length + 2)
    .toLowerCase()
    .replace(/\s+/g, '');
  // Still possibly the start of a marker: wait for the next piece before showing anything.
  if (isPrefixOf(head, THOUGHT) || isPrefixOf(head, RESPONSE)) return '';
  const marker = /(?:^|\n)\s*Response\s*:\s*/i.exec(text);
  let visible: string;
  if (marker) visible = text.slice(marker.index + marker[0].length);
  else if (/^Thought\s*:/i.test(text)) visible = '';
  else visible = heldLastLine(text);
  return visible.trimEnd().slice(0, MAX_BOT_TEXT_CHARS);
}

/** The text without its last line while that line may still become a `Response:` marker. */
function heldLastLine(text: string): string {
  const newline = text.lastIndexOf('\n');
  if (newline < 0) return text;
  const last = text
    .slice(newline + 1)
    .toLowerCase()
    .replace(/\s+/g, '');
  return isPrefixOf(last, RESPONSE) ? text.slice(0, newline) : text;
}

function isPrefixOf(head: string, marker: string): boolean {
  return head.length < marker.length && marker.startsWith(head);
}
