// @ts-check
/**
 * How many attempts ran at once over a run, from the timeline's bars: a step function (the count after each start
 * or end) and its maximum. A bar still running ends at `now`. Ends sort before starts at the same instant, so a
 * subtask that starts as its dependency ends does not count as parallel with it.
 */

/**
 * @param {Iterable<{ start: number, end?: number }>} bars
 * @param {number} now
 * @returns {{ max: number, steps: { at: number, running: number }[] }}
 */
export function parallelism(bars, now) {
  /** @type {[number, number][]} */
  const edges = [];
  for (const bar of bars) {
    const end = bar.end ?? Math.max(now, bar.start);
    if (!(end > bar.start)) continue;
    edges.push([bar.start, 1], [end, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  /** @type {{ at: number, running: number }[]} */
  const steps = [];
  let running = 0;
  let max = 0;
  for (const [at, change] of edges) {
    running += change;
    max = Math.max(max, running);
    const last = steps[steps.length - 1];
    if (last && last.at === at) last.running = running;
    else steps.push({ at, running });
  }
  return { max, steps };
}

/**
 * Every bar of a fold's attempts, flattened.
 * @param {import('./run-fold.js').RunFold} fold
 */
export function allBars(fold) {
  return [...fold.attempts.values()].flat();
}
