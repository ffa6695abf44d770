/**
 * The lines an MCP client sends over stdio, each at most a limit: a longer line is dropped as it arrives (never held
 * whole) and reported, so the server answers it and goes on. The SDK's own reader instead throws past its buffer's
 * limit and closes the transport, and the server would exit as if the client had left.
 */
import { Transform } from 'node:stream';

/** A line over the limit that was dropped. */
export interface OversizedMessage {
  /** Its length in bytes, without the newline. */
  readonly bytes: number;
  /** The JSON-RPC id of the request, when its first or last bytes show it; null when they do not. */
  readonly id: string | number | null;
}

/** Bytes kept of each end of a dropped line, to find its id: the SDK's clients write it last, others near the start. */
const END_BYTES = 4096;

/**
 * A stream that passes each line of at most `limit` bytes on whole, as one chunk, and calls `onOversized` for each
 * longer one once its newline arrives (or the input ends).
 */
export function boundedMessageLines(limit: number, onOversized: (message: OversizedMessage) => void): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Set while a line over the limit is being dropped: its first and last bytes and its length so far.
  let dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  const drop = (piece: Buffer) => {
    if (!dropping) return;
    dropping.bytes += piece.length;
    const tail = Buffer.concat([dropping.tail, piece.subarray(Math.max(0, piece.length - END_BYTES))]);
    dropping.tail = tail.subarray(Math.max(0, tail.length - END_BYTES));
  };
  const endDropped = () => {
    if (!dropping) return;
    const { head, tail, bytes } = dropping;
    dropping = undefined;
    onOversized({ bytes, id: requestIdOf(head.toString('utf8'), tail.toString('utf8')) });
  };

  return new Transform({
    // One line a chunk, never two run together: the SDK's reader holds at most one line then.
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline === -1 ? chunk.length : newline;
        const piece = chunk.subarray(start, end);
        if (dropping) drop(piece);
        else if (pendingBytes + piece.length > limit) {
          const line = Buffer.concat([...pending, piece]);
          dropping = { head: Buffer.from(line.subarray(0, END_BYTES)), tail: Buffer.alloc(0), bytes: 0 };
          drop(line);
          pending = [];
          pendingBytes = 0;
        } else {
          pending.push(piece);
          pendingBytes += piece.length;
        }
        if (newline === -1) break;
        if (dropping) endDropped();
        else {
          // Copied: the chunk's memory is not kept alive by a small line taken from it.
          this.push(Buffer.concat([...pending, Buffer.from('\n')]));
          pending = [];
          pendingBytes = 0;
        }
        start = newline + 1;
      }
      done();
    },
    flush(done) {
      endDropped();
      if (pendingBytes > 0) this.push(Buffer.concat(pending));
      done();
    },
  });
}

/**
 * The id of a JSON-RPC request from the ends of its text: as the first member (after "jsonrpc") or as the last one.
 * Only those places are sure to be the top-level object's own; a nested "id" elsewhere is not taken for it.
 */
export function requestIdOf(head: string, tail: string): string | number | null {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*[,}]`).exec(
    head,
  );
  const last = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return null;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}
