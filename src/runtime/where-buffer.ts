/**
 * Where a worker is (a workflow node and field, a tool), in a buffer it shares with the pool's thread: the worker
 * writes it before each expression, and the pool reads it when it stops the worker, which may be in the middle of a
 * write, or paused there by the OS for milliseconds. The buffer is a ring of slots: the worker writes the slot after
 * the published one, then publishes it by raising a generation number, so a reader always finds the last whole text
 * at once. A read is retried only when the writer got round the ring to the slot being read meanwhile. Without this
 * a read mixed two texts ("node more (expr)s)" from "more (expr)" over "next (values)").
 */

/** Slots in the ring: a read is good unless the writer published SLOTS - 1 texts while it copied one. */
const SLOTS = 8;
/** Bytes of a slot: a length (Uint16), then the UTF-8 text. */
const SLOT_BYTES = 512;
/** The generation (Int32) at 0; slot k at HEADER + k × SLOT_BYTES. */
const HEADER = 8;
/** Bytes of the buffer. */
export const WHERE_BYTES = HEADER + SLOTS * SLOT_BYTES;
/** Reads overtaken by the writer before the reader gives up. */
const READ_TRIES = 10_000;

function slotAt(generation: number): number {
  return HEADER + (generation & (SLOTS - 1)) * SLOT_BYTES;
}

/** The writer of a worker's place (the only one); each text is encoded once, as a case notes where it is often. */
export function whereWriter(shared: SharedArrayBuffer): (where: string) => void {
  const generation = new Int32Array(shared, 0, 1);
  const bytes = new Uint8Array(shared);
  const view = new DataView(shared);
  const encoder = new TextEncoder();
  const encoded = new Map<string, Uint8Array>();
  let published = Atomics.load(generation, 0);
  let last: string | undefined;
  return (where) => {
    if (where === last) return;
    last = where;
    let text = encoded.get(where);
    if (!text) {
      text = encoder.encode(where).subarray(0, SLOT_BYTES - 2);
      if (encoded.size > 10_000) encoded.clear();
      encoded.set(where, text);
    }
    const next = (published + 1) | 0;
    const slot = slotAt(next);
    bytes.set(text, slot + 2);
    view.setUint16(slot, text.length);
    Atomics.store(generation, 0, next);
    published = next;
  };
}

const decoder = new TextDecoder();

/** The last whole text written (undefined before the first, or for an empty one). */
export function readWhere(shared: SharedArrayBuffer): string | undefined {
  const generation = new Int32Array(shared, 0, 1);
  const bytes = new Uint8Array(shared);
  const view = new DataView(shared);
  for (let tries = 0; tries < READ_TRIES; tries++) {
    const before = Atomics.load(generation, 0);
    const slot = slotAt(before);
    const length = Math.min(view.getUint16(slot), SLOT_BYTES - 2);
    const text = bytes.slice(slot + 2, slot + 2 + length);
    // The writer starts on this slot again only after publishing SLOTS - 1 more.
    if (((Atomics.load(generation, 0) - before) | 0) > SLOTS - 2) continue;
    return length === 0 ? undefined : decoder.decode(text);
  }
  return undefined;
}
