// @ts-check
/**
 * Pieces the graph drawings (a plan's DAG as SVG or on a canvas, an executable workflow) share: the arrowhead, an
 * edge's path and a label cut to fit its box.
 */
import { s } from '../dom.js';

/** @param {string} id the marker's id, which edges name in `marker-end: url(#id)` */
export function arrowDefs(id) {
  return s(
    'defs',
    {},
    s(
      'marker',
      { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead' }),
    ),
  );
}

/** @param {{ x: number, y: number }[]} points */
export function pathThrough(points) {
  return points.map((point, index) => `${index ? 'L' : 'M'}${point.x},${point.y}`).join(' ');
}

/** A label cut to fit its box. @param {string} text @param {number} length */
export function clip(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
