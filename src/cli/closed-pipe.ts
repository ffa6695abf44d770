/**
 * A reader that stops early (`weft runs | head -1`) closes the pipe; the next write fails with EPIPE, which
 * Node reports as an 'error' event that would crash the process with a stack trace. A closed output is a normal
 * end: later writes to it are dropped (a destroyed stream drops them silently) and the command carries on, so a
 * run whose progress pipe closes still finishes and is recorded.
 */
const guarded = new WeakSet<object>();

export function tolerateClosedPipe(stream: NodeJS.WritableStream): void {
  // A caller's own sink (a test's, a library user's) may be a bare { write }: nothing to guard.
  if (guarded.has(stream) || typeof stream.on !== 'function') return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    // Any other output failure stays as loud as it was without this listener.
    throw error;
  });
}
