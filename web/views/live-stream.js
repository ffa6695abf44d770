// @ts-check
/**
 * A run's live event stream that says how it is doing. EventSource reconnects by itself after a dropped
 * connection, but an answer other than 200 (503 BUSY: too many streams; 401: `weft serve` restarted with a new
 * token; 404: the run was pruned) closes it for good and says nothing: the page looked live and was not. Here a
 * closed stream asks the route why, shows it, and, when waiting can help (busy, server away), opens a new
 * stream after the last event folded.
 */

/** How long a closed stream waits before trying again. */
const RETRY_MS = 5000;

/**
 * @typedef {{ state: 'live' | 'reconnecting' | 'stopped' | 'waiting', message: string }} StreamState
 * @param {string} url the events route, without a query
 * @param {{
 *   onEvent: (message: MessageEvent) => void,
 *   onState: (state: StreamState) => void,
 *   lastSeq: () => number,
 *   signal: AbortSignal,
 *   retryMs?: number,
 * }} options
 */
export function openLiveStream(url, options) {
  const retryMs = options.retryMs ?? RETRY_MS;
  /** @type {EventSource | undefined} */
  let source;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  function open() {
    if (options.signal.aborted) return;
    const after = options.lastSeq();
    source = new EventSource(after > 0 ? `${url}?after=${after}` : url);
    source.addEventListener('weft', (message) => options.onEvent(/** @type {MessageEvent} */ (message)));
    source.addEventListener('open', () => options.onState({ state: 'live', message: '' }));
    source.addEventListener('error', () => {
      if (!source || options.signal.aborted) return;
      if (source.readyState === EventSource.CONNECTING) {
        options.onState({ state: 'reconnecting', message: 'Connection to weft serve lost: reconnecting…' });
        return;
      }
      source.close();
      void explain();
    });
  }
  async function explain() {
    // A GET, read up to its status and dropped: HEAD is answered without the stream cap, so it never says BUSY.
    const asking = new AbortController();
    const stop = () => asking.abort();
    options.signal.addEventListener('abort', stop);
    const status = await fetch(url, { credentials: 'same-origin', signal: asking.signal })
      .then((response) => response.status)
      .catch(() => 0);
    asking.abort();
    options.signal.removeEventListener('abort', stop);
    if (options.signal.aborted) return;
    const { message, retry } = why(status);
    options.onState({ state: retry ? 'waiting' : 'stopped', message });
    if (retry) timer = setTimeout(open, retryMs);
  }
  options.signal.addEventListener('abort', () => {
    clearTimeout(timer);
    source?.close();
  });
  open();
}

/**
 * What a closed stream's route answered, in words, and whether trying again later can help.
 * @param {number} status 0 when the server did not answer at all
 * @returns {{ message: string, retry: boolean }}
 */
export function why(status) {
  if (status === 503)
    return {
      message: 'Live updates paused: the server has too many live streams open (BUSY). Trying again…',
      retry: true,
    };
  if (status === 401)
    return {
      message:
        'Live updates stopped: the token is no longer valid (weft serve restarted?). Open the address it printed.',
      retry: false,
    };
  if (status === 404) return { message: 'Live updates stopped: the run is no longer in the store.', retry: false };
  if (status === 0) return { message: 'Live updates paused: weft serve does not answer. Trying again…', retry: true };
  if (status >= 200 && status < 300) return { message: 'Live updates interrupted. Trying again…', retry: true };
  return { message: `Live updates paused: the server answered ${status}. Trying again…`, retry: true };
}
