/** How a streamed reply that stopped early is reported: by the error that stopped it, keeping the text. */
import { WeftError, isWeftError } from '../errors.js';

/**
 * The error of a streamed reply that failed after `text` arrived: the same code and retryability, the message
 * saying how much came, and the text itself as `partialText` so a caller can keep and show it.
 */
export function cutStreamError<E extends Error>(failed: E, text: string): E | WeftError {
  if (text === '') return failed;
  // Anything but a WeftError here is an abort error (the caller's signal's own reason).
  const code = isWeftError(failed) ? failed.code : 'ABORTED';
  return new WeftError(code, `${failed.message} (reply cut after ${text.length} characters)`, {
    cause: failed,
    retryable: isWeftError(failed) && failed.retryable,
    partialText: text,
  });
}
