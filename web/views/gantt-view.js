// @ts-check
/**
 * A timeline of attempts: on top, how many attempts ran at once (a step chart, its peak labelled), then one row per
 * subtask, one bar per attempt from its start to its end (or to the newest event while it runs). Bars that overlap
 * in time are subtasks that ran in parallel. Redrawn as a whole, at most a few times a second; past MAX_ROWS the
 * newest rows are dropped with a note.
 */
import { h, s } from '../dom.js';
import { duration } from '../format.js';
import { toolFailureText } from './attempt-label.js';
import { allBars, parallelism } from './parallelism.js';

const ROW = 18;
const LABEL = 150;
const WIDTH = 900;
/** The parallelism strip's height. */
const STRIP = 44;
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
  const top = STRIP + 8;
  const svg = s('svg', {
    class: 'gantt',
    id: 'gantt',
    width: WIDTH,
    height: top + shown.length * ROW + 24,
    role: 'img',
    'aria-label': 'timeline of attempts',
  });
  const { max, steps } = parallelism(allBars(fold), fold.lastAt);
  svg.append(...strip(steps, max, scale));
  shown.forEach(([taskId, bars], row) => {
    const y = top + row * ROW + 4;
    if (row % 2 === 1) svg.append(s('rect', { x: 0, y: y - 3, width: WIDTH, height: ROW, class: 'stripe' }));
    svg.append(s('text', { x: 4, y: y + 12, class: 'label' }, taskId.length > 20 ? `${taskId.slice(0, 19)}…` : taskId));
    for (const bar of bars) {
      const stop = bar.end ?? end;
      const state = bar.end === undefined ? 'running' : (bar.outcome ?? bar.status ?? '');
      // A completed attempt whose tool calls failed is amber, not green (as its node in the graph).
      const warned = state === 'completed' && (bar.toolCallsFailed ?? 0) > 0;
      svg.append(
        s(
          'rect',
          {
            x: LABEL + bar.start * scale,
            y,
            width: Math.max(2, (stop - bar.start) * scale),
            height: ROW - 6,
            class: `bar ${state}${warned ? ' tool-warn' : ''}`,
            'data-task': taskId,
            'data-attempt': bar.attempt,
          },
          s(
            'title',
            {},
            `${taskId} attempt ${bar.attempt} (${bar.agent}): ${duration(stop - bar.start)}${bar.outcome ? `, ${bar.outcome === 'rejected' ? `sent back by the verifier (${bar.verdict})` : bar.outcome}` : ''}${bar.toolCallsFailed ? `, ${toolFailureText(bar.toolCallsFailed)}` : ''}`,
          ),
        ),
      );
    }
  });
  svg.append(s('text', { x: LABEL, y: top + shown.length * ROW + 20, class: 'axis' }, `0 — ${duration(end)}`));
  const wrapper = h('div', { class: 'gantt-wrap', 'data-max-parallel': max }, svg);
  if (rows.length > shown.length)
    wrapper.append(h('p', { class: 'muted' }, `${rows.length - shown.length} more subtasks not drawn`));
  return wrapper;
}

/**
 * The step chart of attempts running at once, as one path, with its peak.
 * @param {{ at: number, running: number }[]} steps @param {number} max @param {number} scale
 */
function strip(steps, max, scale) {
  const base = STRIP;
  const unit = max > 0 ? (STRIP - 6) / max : 0;
  let d = `M${LABEL},${base}`;
  let level = 0;
  for (const step of steps) {
    const x = LABEL + step.at * scale;
    d += ` L${x},${base - level * unit} L${x},${base - step.running * unit}`;
    level = step.running;
  }
  d += ` L${WIDTH - 10},${base - level * unit} L${WIDTH - 10},${base} Z`;
  return [
    s('text', { x: 4, y: 16, class: 'label' }, 'running at once'),
    s('text', { x: 4, y: 32, class: 'axis', id: 'max-parallel' }, `peak ${max}`),
    s('path', { d, class: 'parallel' }),
    s('line', { x1: LABEL, y1: base, x2: WIDTH - 10, y2: base, class: 'baseline' }),
  ];
}
