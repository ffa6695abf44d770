// @ts-check
/**
 * A large plan's DAG on a canvas, for plans of CANVAS_FROM subtasks or more. As SVG, a 10,000-subtask plan is some
 * 80,000 elements, which the browser takes seconds to lay out and paint, and a scroll repaints them all. Here one
 * canvas the size of the visible box stays in view (sticky) inside a box the size of the zoomed graph, and each frame
 * draws only the nodes and edges in view; a status change marks the frame dirty, so a burst of events costs one
 * drawing. Same interface as dag-view.js's drawDag: setStatus, setToolFailures, select, plus a click or Enter on a
 * subtask to open it, and a "go to subtask" box for the keyboard (a canvas has no focusable nodes).
 *
 * The container carries what tests and people read off the DOM: `data-nodes` (the plan's size), `data-drawn` (nodes
 * drawn in the last frame) and `data-status-<status>` counts.
 */
import { h } from '../dom.js';
import { clip } from './svg-parts.js';

/** From this many subtasks on, the plan is drawn on a canvas instead of as SVG. */
export const CANVAS_FROM = 2000;
/** Below this zoom the id and agent lines would be unreadable: boxes only. */
const TEXT_FROM_SCALE = 0.45;

/**
 * @param {{ layout: any, subtasks: any[] }} data
 * @param {(id: string) => void} onSelect
 * @param {HTMLElement} box the scrolling container the graph is drawn in
 * @returns {{ element: HTMLElement, setStatus: (id: string, status: string) => void,
 *   setToolFailures: (id: string, count: number) => void, select: (id: string | undefined) => void,
 *   resize: (scale: number) => void }}
 */
export function drawDagCanvas(data, onSelect, box) {
  const { layout } = data;
  const width = Math.max(layout.width, 1);
  const height = Math.max(layout.height, 1);
  /** @type {{ id: string, agent: string, x: number, y: number, w: number, h: number }[]} */
  const nodes = layout.nodes.map((/** @type {any} */ node) => ({
    id: String(node.id),
    agent: String(node.agent ?? ''),
    x: node.x - node.width / 2,
    y: node.y - node.height / 2,
    w: node.width,
    h: node.height,
  }));
  /** Each edge with its bounding box, so the ones out of view are skipped without walking their points. */
  const edges = layout.edges.map((/** @type {any} */ edge) => {
    const xs = edge.points.map((/** @type {any} */ point) => point.x);
    const ys = edge.points.map((/** @type {any} */ point) => point.y);
    return {
      points: edge.points,
      left: Math.min(...xs),
      right: Math.max(...xs),
      top: Math.min(...ys),
      bottom: Math.max(...ys),
    };
  });
  /** @type {Map<string, string>} */
  const statuses = new Map();
  /** @type {Map<string, number>} */
  const failures = new Map();
  /** @type {string | undefined} */
  let selected;
  let scale = 1;

  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'dag-canvas-surface' }));
  const element = h(
    'div',
    {
      class: 'dag dag-canvas',
      id: 'dag',
      role: 'img',
      'aria-label': `plan graph of ${nodes.length} subtasks`,
      'data-nodes': nodes.length,
      'data-drawn': 0,
      'data-status-not-started': nodes.length,
    },
    canvas,
  );
  const colours = readColours();

  let dirty = false;
  function schedule() {
    if (dirty) return;
    dirty = true;
    requestAnimationFrame(draw);
  }

  function draw() {
    dirty = false;
    if (!element.isConnected) return;
    const ratio = window.devicePixelRatio || 1;
    const viewWidth = Math.max(1, Math.min(box.clientWidth, width * scale));
    const viewHeight = Math.max(1, Math.min(box.clientHeight || viewWidth, height * scale));
    if (canvas.width !== Math.round(viewWidth * ratio) || canvas.height !== Math.round(viewHeight * ratio)) {
      canvas.width = Math.round(viewWidth * ratio);
      canvas.height = Math.round(viewHeight * ratio);
      canvas.style.width = `${viewWidth}px`;
      canvas.style.height = `${viewHeight}px`;
    }
    const context = canvas.getContext('2d');
    if (!context) return;
    // The part of the graph in view, in the graph's own coordinates.
    const left = box.scrollLeft / scale;
    const top = box.scrollTop / scale;
    const right = left + viewWidth / scale;
    const bottom = top + viewHeight / scale;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, viewWidth, viewHeight);
    context.setTransform(ratio * scale, 0, 0, ratio * scale, -left * scale * ratio, -top * scale * ratio);

    context.strokeStyle = colours.edge;
    context.lineWidth = 1.2;
    context.beginPath();
    for (const edge of edges) {
      if (edge.right < left || edge.left > right || edge.bottom < top || edge.top > bottom) continue;
      const [first, ...rest] = edge.points;
      context.moveTo(first.x, first.y);
      for (const point of rest) context.lineTo(point.x, point.y);
    }
    context.stroke();

    const text = scale >= TEXT_FROM_SCALE;
    let drawn = 0;
    for (const node of nodes) {
      if (node.x + node.w < left || node.x > right || node.y + node.h < top || node.y > bottom) continue;
      drawn += 1;
      const status = statuses.get(node.id) ?? 'not started';
      const warned = status === 'completed' && (failures.get(node.id) ?? 0) > 0;
      const colour = warned ? colours.warn : (colours.status[status] ?? colours.status['not started']);
      context.fillStyle = colour.fill;
      context.strokeStyle = node.id === selected ? colours.accent : colour.stroke;
      context.lineWidth = node.id === selected ? 3 : 1.2;
      context.beginPath();
      context.roundRect(node.x, node.y, node.w, node.h, 6);
      context.fill();
      context.stroke();
      if (text) {
        context.fillStyle = colours.fg;
        context.font = '12px system-ui, sans-serif';
        context.fillText(clip(node.id, 22), node.x + 8, node.y + 18);
        context.fillStyle = colours.muted;
        context.font = '11px system-ui, sans-serif';
        context.fillText(clip(node.agent, 24), node.x + 8, node.y + 34);
      }
      const failed = failures.get(node.id) ?? 0;
      if (failed > 0 && text) {
        context.fillStyle = colours.warn.fill;
        context.strokeStyle = colours.warn.stroke;
        context.lineWidth = 1.2;
        context.beginPath();
        context.roundRect(node.x + node.w - 34, node.y - 8, 40, 16, 8);
        context.fill();
        context.stroke();
        context.fillStyle = colours.warn.stroke;
        context.font = '600 11px system-ui, sans-serif';
        context.fillText(`⚠ ${failed > 99 ? '99+' : failed}`, node.x + node.w - 27, node.y + 4);
      }
    }
    element.setAttribute('data-drawn', String(drawn));
  }

  /** The subtask under a point of the canvas, if any. @param {number} x @param {number} y */
  function nodeAt(x, y) {
    const graphX = (box.scrollLeft + x) / scale;
    const graphY = (box.scrollTop + y) / scale;
    return nodes.find(
      (node) => graphX >= node.x && graphX <= node.x + node.w && graphY >= node.y && graphY <= node.y + node.h,
    );
  }

  canvas.addEventListener('click', (event) => {
    const bounds = canvas.getBoundingClientRect();
    const node = nodeAt(event.clientX - bounds.left, event.clientY - bounds.top);
    if (node) onSelect(node.id);
  });
  canvas.addEventListener('mousemove', (event) => {
    const bounds = canvas.getBoundingClientRect();
    const node = nodeAt(event.clientX - bounds.left, event.clientY - bounds.top);
    const failed = node ? (failures.get(node.id) ?? 0) : 0;
    canvas.title = node
      ? `${node.id}${failed > 0 ? `: ${failed} failed tool call${failed === 1 ? '' : 's'}` : ''}`
      : '';
    canvas.style.cursor = node ? 'pointer' : 'default';
  });
  box.addEventListener('scroll', schedule, { passive: true });
  window.addEventListener('resize', schedule, { passive: true });

  return {
    element,
    setStatus(id, status) {
      if (statuses.get(id) === status) return;
      const before = statuses.get(id) ?? 'not started';
      statuses.set(id, status);
      countStatus(element, before, -1);
      countStatus(element, status, 1);
      schedule();
    },
    setToolFailures(id, count) {
      if ((failures.get(id) ?? 0) === count) return;
      if (count > 0) failures.set(id, count);
      else failures.delete(id);
      element.setAttribute('data-tool-failures', String(failures.size));
      schedule();
    },
    select(id) {
      selected = id;
      const node = id === undefined ? undefined : nodes.find((candidate) => candidate.id === id);
      // Bring a subtask chosen elsewhere (the address, the "go to" box) into view.
      if (node) {
        const x = (node.x + node.w / 2) * scale - box.clientWidth / 2;
        const y = (node.y + node.h / 2) * scale - box.clientHeight / 2;
        const inView =
          node.x * scale >= box.scrollLeft &&
          (node.x + node.w) * scale <= box.scrollLeft + box.clientWidth &&
          node.y * scale >= box.scrollTop &&
          (node.y + node.h) * scale <= box.scrollTop + box.clientHeight;
        if (!inView) box.scrollTo({ left: Math.max(0, x), top: Math.max(0, y) });
      }
      schedule();
    },
    /** The zoom changed: the box is the zoomed graph's size, the canvas only the view's. @param {number} next */
    resize(next) {
      scale = next;
      element.style.width = `${Math.max(1, Math.round(width * scale))}px`;
      element.style.height = `${Math.max(1, Math.round(height * scale))}px`;
      schedule();
    },
  };
}

/**
 * A box to jump to a subtask by id, for the keyboard and for plans too large to find one by eye.
 * @param {(id: string) => boolean} go selects the id, false when the plan has no such subtask
 */
export function subtaskFinder(go) {
  const input = /** @type {HTMLInputElement} */ (
    h('input', { type: 'search', id: 'subtask-find', placeholder: 'go to subtask id', 'aria-label': 'go to subtask' })
  );
  const note = h('span', { class: 'muted', role: 'status' });
  input.addEventListener('keydown', (event) => {
    if (/** @type {KeyboardEvent} */ (event).key !== 'Enter') return;
    const id = input.value.trim();
    note.textContent = id === '' || go(id) ? '' : `no subtask ${id}`;
  });
  return h('span', { class: 'subtask-find' }, input, note);
}

/** @param {HTMLElement} element @param {string} status @param {number} change */
function countStatus(element, status, change) {
  const name = `data-status-${status.replace(' ', '-')}`;
  element.setAttribute(name, String(Number(element.getAttribute(name) ?? 0) + change));
}

/** The page's own colours (style.css), so the canvas and the SVG drawing agree. */
function readColours() {
  const style = getComputedStyle(document.documentElement);
  const value = (/** @type {string} */ name, /** @type {string} */ fallback) =>
    style.getPropertyValue(name).trim() || fallback;
  return {
    fg: value('--fg', '#1d1d1f'),
    muted: value('--muted', '#6b6b70'),
    accent: value('--accent', '#3d5afe'),
    edge: '#9a9aa3',
    warn: { fill: value('--warn-bg', '#fff7c2'), stroke: value('--warn', '#8a5a00') },
    /** @type {Record<string, { fill: string, stroke: string }>} */
    status: {
      'not started': { fill: value('--idle-bg', '#eeeef1'), stroke: '#a4a4ad' },
      'in progress': { fill: value('--run-bg', '#fff1d6'), stroke: value('--run', '#b26a00') },
      completed: { fill: value('--done-bg', '#e3f3e4'), stroke: value('--done', '#2e7d32') },
      failed: { fill: value('--fail-bg', '#fde4e4'), stroke: value('--fail', '#c62828') },
    },
  };
}
