/**
 * The progress bar of `weft exec --inputs`: one line redrawn on a TTY (at most ~12 times a second), nothing on a
 * pipe or file, so logs and `--json` stay clean. Always stderr.
 */
import type { BatchProgress } from '../../internal.js';
import type { Streams } from '../output.js';

export interface BatchProgressView {
  readonly update: (progress: BatchProgress) => void;
  readonly close: () => void;
}

const WIDTH = 24;

export function createBatchProgress(stream: Streams['stderr'], options: { live?: boolean } = {}): BatchProgressView {
  if (!(options.live ?? stream.isTTY === true)) return { update: () => {}, close: () => {} };
  const started = performance.now();
  let last: BatchProgress | undefined;
  let timer: NodeJS.Timeout | undefined;
  let drawn = false;
  const draw = () => {
    timer = undefined;
    if (!last) return;
    const { done, total, passed, failed, errors } = last;
    const filled = total > 0 ? Math.round((done / total) * WIDTH) : 0;
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    const line = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total} · ${passed} passed · ${failed} failed · ${errors} errors · ${rate} cases/s`;
    const width = Math.max(40, (stream.columns ?? 100) - 1);
    stream.write(`\r\u001b[2K${line.slice(0, width)}`);
    drawn = true;
  };
  return {
    update(progress) {
      last = progress;
      timer ??= setTimeout(draw, 80);
    },
    close() {
      if (timer) clearTimeout(timer);
      if (last) draw();
      if (drawn) stream.write('\n');
    },
  };
}
