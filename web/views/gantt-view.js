// @ts-check
/**
 * A timeline of attempts: one row per subtask, one bar per attempt from its start to its end (or to the newest
 * event while it runs). Bars that overlap in time are subtasks that ran in parallel. Redrawn as a whole, at most
 * a few times a second; past MAX_ROWS the newest rows are dropped with a note.
 */
import { duration, s, h } from '../dom.js';

const ROW = 18;
const LABEL = 150;
const WIDTH = 900;
export const MAX_ROWS = 2000;

/**
 * @param {import('./run-fold.js').RunFold} fold
 * @returns {HTMLElement}
 */
export function drawGantt(fold) {
  const rows = [...fold.attempts.entries()].sort((a, b) => (a[1][0]?.start ?? 0) - (b[1][0]?.start ?? 0));
  const shown = rows.slice(0, MAX_ROWS);
  const end = Math.max(fold.lastAt, 1);
  const scale = (WIDTH - LABEL - 10) / end;
  const svg = s('svg', {
    class: 'gantt',
    id: 'gantt',
    width: WIDTH,
    height: shown.length * ROW + 24,
    role: 'img',
    'aria-label': 'timeline of attempts',
  });
  shown.forEach(([taskId, bars], row) => {
    const y = row * ROW + 4;
    svg.append(s('text', { x: 4, y: y + 12, class: 'label' }, taskId.length > 20 ? `${taskId.slice(0, 19)}…` : taskId));
    for (const bar of bars) {
      const stop = bar.end ?? end;
      svg.append(
        s(
          'rect',
          {
            x: LABEL + bar.start * scale,
            y,
            width: Math.max(2, (stop - bar.start) * scale),
            height: ROW - 6,
            class: `bar ${bar.end === undefined ? 'running' : (bar.outcome ?? bar.status ?? '')}`,
            'data-task': taskId,
            'data-attempt': bar.attempt,
          },
          s(
            'title',
            {},
            `${taskId} attempt ${bar.attempt} (${bar.agent}): ${duration(stop - bar.start)}${bar.outcome ? `, ${bar.outcome}` : ''}`,
          ),
        ),
      );
    }
  });
  svg.append(s('text', { x: LABEL, y: shown.length * ROW + 20, class: 'axis' }, `0 — ${duration(end)}`));
  const wrapper = h('div', { class: 'gantt-wrap' }, svg);
  if (rows.length > shown.length)
    wrapper.append(h('p', { class: 'muted' }, `${rows.length - shown.length} more subtasks not drawn`));
  return wrapper;
}
