// @ts-check
/**
 * The plan's DAG as SVG, from positions the server computed with dagre. Each node is a `<g class="node">` with
 * `data-id` and `data-status`; a status change only rewrites that attribute, so a 10,000-node plan animates
 * without redrawing. A node whose tool calls failed gets `data-tool-failures` and a `⚠ N` badge: a completed one
 * is then drawn amber, not green, since its output may claim what a failed call did not do.
 */
import { arrowDefs, clip, pathThrough } from './svg-parts.js';
import { h, s } from '../dom.js';

/**
 * @param {{ layout: any, subtasks: any[] }} data
 * @param {(id: string) => void} onSelect
 * @param {{ classes?: Map<string, string>, markerId?: string }} [options] extra classes per node (plan history's
 *   diff); a marker id of its own when several graphs share a page
 * @returns {{ element: SVGElement, setStatus: (id: string, status: string) => void,
 *   setToolFailures: (id: string, count: number) => void, select: (id: string | undefined) => void }}
 */
export function drawDag(data, onSelect, options = {}) {
  const markerId = options.markerId ?? 'arrow';
  const { layout } = data;
  const width = Math.max(layout.width, 1);
  const height = Math.max(layout.height, 1);
  const svg = s('svg', {
    class: 'dag',
    ...(options.markerId ? {} : { id: 'dag' }),
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': 'plan graph',
  });
  svg.append(arrowDefs(markerId));
  const edges = s('g', { class: 'edges' });
  for (const edge of layout.edges) {
    const d = pathThrough(edge.points);
    edges.append(
      s('path', { d, class: 'edge', 'marker-end': `url(#${markerId})`, 'data-from': edge.from, 'data-to': edge.to }),
    );
  }
  svg.append(edges);
  /** @type {Map<string, SVGElement>} */
  const nodes = new Map();
  /** Each node's width, for placing its badge. @type {Map<string, number>} */
  const widths = new Map();
  const group = s('g', { class: 'nodes' });
  for (const node of layout.nodes) {
    const g = s(
      'g',
      {
        class: options.classes?.has(node.id) ? `node ${options.classes.get(node.id)}` : 'node',
        'data-id': node.id,
        'data-status': 'not started',
        transform: `translate(${node.x - node.width / 2},${node.y - node.height / 2})`,
        tabindex: 0,
      },
      s('rect', { width: node.width, height: node.height, rx: 6 }),
      s('text', { x: 8, y: 18, class: 'id' }, clip(node.id, 22)),
      s('text', { x: 8, y: 34, class: 'agent' }, clip(node.agent, 24)),
      s('title', {}, node.id),
    );
    nodes.set(node.id, g);
    widths.set(node.id, node.width);
    group.append(g);
  }
  svg.append(group);
  svg.addEventListener('click', (event) => {
    const target = /** @type {Element} */ (event.target).closest('g.node');
    const id = target?.getAttribute('data-id');
    if (id) onSelect(id);
  });
  svg.addEventListener('keydown', (event) => {
    const target = /** @type {Element} */ (event.target).closest('g.node');
    const id = target?.getAttribute('data-id');
    if (!id || (event.key !== 'Enter' && event.key !== ' ')) return;
    // Space would also scroll the page away from the node just opened.
    event.preventDefault();
    onSelect(id);
  });
  /** @type {SVGElement | undefined} */
  let selected;
  return {
    element: svg,
    setStatus(id, status) {
      const g = nodes.get(id);
      if (g && g.getAttribute('data-status') !== status) g.setAttribute('data-status', status);
    },
    setToolFailures(id, count) {
      const g = nodes.get(id);
      if (!g || g.getAttribute('data-tool-failures') === (count > 0 ? String(count) : null)) return;
      g.querySelector('g.tool-warn')?.remove();
      const title = g.querySelector('title');
      if (count <= 0) {
        g.removeAttribute('data-tool-failures');
        if (title) title.textContent = id;
        return;
      }
      const label = `${count} failed tool call${count === 1 ? '' : 's'}`;
      g.setAttribute('data-tool-failures', String(count));
      if (title) title.textContent = `${id}: ${label}`;
      // On the node's top right corner, over its border: the id and agent lines keep their room.
      const width = widths.get(id) ?? 0;
      g.append(
        s(
          'g',
          { class: 'tool-warn', transform: `translate(${width - 34},-8)`, 'aria-label': label },
          s('rect', { width: 40, height: 16, rx: 8 }),
          s('text', { x: 20, y: 12, 'text-anchor': 'middle' }, `⚠ ${count > 99 ? '99+' : count}`),
        ),
      );
    },
    select(id) {
      selected?.classList.remove('selected');
      selected = id === undefined ? undefined : nodes.get(id);
      selected?.classList.add('selected');
    },
  };
}

/**
 * Zoom for a drawn graph: fit to the box's width, 100 %, smaller and larger. The SVG keeps its viewBox and only its
 * size changes, so the box scrolls; the scale survives a redraw (a new plan version keeps the user's zoom).
 * @param {HTMLElement} box the scrolling container the graph is drawn in
 */
export function createZoom(box) {
  let scale = 1;
  /** Whether the user chose a scale; until then a large graph starts fitted to the width. */
  let chosen = false;
  /** @type {Element | undefined} */
  let svg;
  let width = 1;
  let height = 1;
  const label = h('span', { class: 'zoom-level muted' }, '100%');
  /** A canvas drawing sizes itself (dag-canvas.js); an SVG is sized here. @type {((scale: number) => void) | undefined} */
  let resize;
  function apply() {
    if (!svg) return;
    if (resize) resize(scale);
    else {
      svg.setAttribute('width', String(Math.max(1, Math.round(width * scale))));
      svg.setAttribute('height', String(Math.max(1, Math.round(height * scale))));
    }
    label.textContent = `${Math.round(scale * 100)}%`;
  }
  function fitScale() {
    const room = Math.max(box.clientWidth - 4, 100);
    // Below 5 % a node is a pixel: scrolling a readable graph beats a fitted grey smear.
    return Math.max(0.05, Math.min(1, room / width));
  }
  /** @param {number} next */
  function set(next) {
    chosen = true;
    scale = Math.min(4, Math.max(0.05, next));
    apply();
  }
  const element = h(
    'div',
    { class: 'zoom', role: 'group', 'aria-label': 'zoom' },
    h('button', { type: 'button', class: 'zoom-fit', title: 'fit to width', onclick: () => set(fitScale()) }, 'fit'),
    h('button', { type: 'button', class: 'zoom-out', title: 'smaller', onclick: () => set(scale / 1.25) }, '−'),
    h('button', { type: 'button', class: 'zoom-in', title: 'larger', onclick: () => set(scale * 1.25) }, '+'),
    h('button', { type: 'button', class: 'zoom-reset', title: 'actual size', onclick: () => set(1) }, '100%'),
    label,
  );
  return {
    element,
    /**
     * @param {Element} drawn
     * @param {{ width: number, height: number }} size
     * @param {(scale: number) => void} [resizer] how a drawing that is not an SVG takes a new scale
     */
    attach(drawn, size, resizer) {
      svg = drawn;
      resize = resizer;
      width = Math.max(size.width, 1);
      height = Math.max(size.height, 1);
      if (!chosen) scale = fitScale();
      apply();
    },
    get scale() {
      return scale;
    },
  };
}

/**
 * The colour key of a graph: one swatch per class with its label.
 * @param {[string, string][]} entries [class of the swatch, label]
 */
export function legend(entries) {
  return h(
    'ul',
    { class: 'legend' },
    ...entries.map(([swatch, text]) => h('li', {}, h('span', { class: `swatch ${swatch}` }), text)),
  );
}
