import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { readWhere, WHERE_BYTES, whereWriter } from '../../src/runtime/where-buffer.js';

const TEXTS = ['next (values)', 'more (expr)', 'a', 'node wait (args), tool hang', 'näé (ünïcode)'];

/** A worker thread that writes the texts in turn, as fast as it can, until `stop` is set. */
function busyWriter(shared: SharedArrayBuffer, stop: SharedArrayBuffer): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const module = new URL('../../src/runtime/where-buffer.ts', import.meta.url).href;
  const code = `
    const { workerData } = await import('node:worker_threads');
    const { register } = await import(${JSON.stringify(tsx)});
    register();
    const { whereWriter } = await import(${JSON.stringify(module)});
    const write = whereWriter(workerData.shared);
    const stop = new Int32Array(workerData.stop);
    const texts = ${JSON.stringify(TEXTS)};
    for (let i = 0; Atomics.load(stop, 0) === 0; i++) write(texts[i % texts.length]);
  `;
  return new Worker(code, { eval: true, workerData: { shared, stop } });
}

describe('the shared where buffer', () => {
  it('reads back what was written, and nothing before the first write', () => {
    const shared = new SharedArrayBuffer(WHERE_BYTES);
    expect(readWhere(shared)).toBeUndefined();
    const write = whereWriter(shared);
    write('next (values)');
    write('more (expr)');
    expect(readWhere(shared)).toBe('more (expr)');
    write('');
    expect(readWhere(shared)).toBeUndefined();
    // A text longer than a slot is cut to it.
    write('x'.repeat(5000));
    const cut = readWhere(shared) ?? '';
    expect(cut).toMatch(/^x+$/);
    expect(cut.length).toBeGreaterThan(500);
    expect(cut.length).toBeLessThan(WHERE_BYTES / 2);
  });

  // A worker stopped at its deadline is read while it writes: a read must give one whole text, never the end of
  // the one before it after the start of this one.
  it('gives only whole texts while another thread writes as fast as it can', async () => {
    const shared = new SharedArrayBuffer(WHERE_BYTES);
    const stop = new SharedArrayBuffer(4);
    const worker = busyWriter(shared, stop);
    try {
      const deadline = Date.now() + 30_000;
      while (readWhere(shared) === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const seen = new Map<string, number>();
      for (let i = 0; i < 200_000; i++) {
        const text = readWhere(shared) ?? '(none)';
        seen.set(text, (seen.get(text) ?? 0) + 1);
      }
      const torn = [...seen.keys()].filter((text) => !TEXTS.includes(text));
      expect(torn).toEqual([]);
      // The reads met the writer at work: they saw the text change.
      expect(seen.size).toBeGreaterThan(1);
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1);
      await worker.terminate();
    }
  });
});
