/**
 * Where a worker is (a workflow node and field, a tool), in a buffer it shares with the pool's thread: the worker
 * writes it before each expression, and the pool reads it when it stops the worker, which may be in the middle of a
 * write. A sequence number, odd while a write is in progress, lets the reader retry rather than return half of one
 * text and the end of the one before it ("node more (expr)s)" from "more (expr)" over "next (values)").
 */

/** Bytes of the buffer: the header, then the UTF-8 text. */
export const WHERE_BYTES = 1024;
/** An Int32 sequence number at 0, the text's length (Uint16) at 4, the text from 8. */
const HEADER = 8;
/**
 * Reads that meet a write before the reader gives up: many, as a busy writer is in the middle of a write most of the
 * time and a try takes nanoseconds; all of them fail only when the writer was stopped halfway (a few milliseconds).
 */
const READ_TRIES = 1_000_000;

/** The writer of a worker's place; each text is encoded once (a case notes where it is before every expression). */
export function whereWriter(shared: SharedArrayBuffer): (where: string) => void {
  const sequence = new Int32Array(shared, 0, 1);
  const bytes = new Uint8Array(shared);
  const view = new DataView(shared);
  const encoder = new TextEncoder();
  const encoded = new Map<string, Uint8Array>();
  let last = '';
  return (where) => {
    if (where === last) return;
    last = where;
    let text = encoded.get(where);
    if (!text) {
      text = encoder.encode(where).subarray(0, bytes.length - HEADER);
      if (encoded.size > 10_000) encoded.clear();
      encoded.set(where, text);
    }
    Atomics.add(sequence, 0, 1);
    bytes.set(text, HEADER);
    view.setUint16(4, text.length);
    Atomics.add(sequence, 0, 1);
  };
}

const decoder = new TextDecoder();

/** The last whole text written (undefined when none, or when the writer was stopped halfway through a write). */
export function readWhere(shared: SharedArrayBuffer): string | undefined {
  const sequence = new Int32Array(shared, 0, 1);
  const bytes = new Uint8Array(shared);
  const view = new DataView(shared);
  for (let tries = 0; tries < READ_TRIES; tries++) {
    const before = Atomics.load(sequence, 0);
    if (before % 2 !== 0) continue;
    const length = Math.min(view.getUint16(4), WHERE_BYTES - HEADER);
    const text = bytes.slice(HEADER, HEADER + length);
    if (Atomics.load(sequence, 0) !== before) continue;
    return length === 0 ? undefined : decoder.decode(text);
  }
  return undefined;
}
