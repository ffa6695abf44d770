// @ts-check
/**
 * The plan's DAG as SVG, from positions the server computed with dagre. Each node is a `<g class="node">` with
 * `data-id` and `data-status`; a status change only rewrites that attribute, so a 10,000-node plan animates
 * without redrawing.
 */
import { s } from '../dom.js';

/**
 * @param {{ layout: any, subtasks: any[] }} data
 * @param {(id: string) => void} onSelect
 * @returns {{ element: SVGElement, setStatus: (id: string, status: string) => void, select: (id: string | undefined) => void }}
 */
export function drawDag(data, onSelect) {
  const { layout } = data;
  const width = Math.max(layout.width, 1);
  const height = Math.max(layout.height, 1);
  const svg = s('svg', {
    class: 'dag',
    id: 'dag',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': 'plan graph',
  });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        {
          id: 'arrow',
          viewBox: '0 0 10 10',
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead' }),
      ),
    ),
  );
  const edges = s('g', { class: 'edges' });
  for (const edge of layout.edges) {
    const d = edge.points
      .map((/** @type {any} */ point, /** @type {number} */ index) => `${index ? 'L' : 'M'}${point.x},${point.y}`)
      .join(' ');
    edges.append(
      s('path', { d, class: 'edge', 'marker-end': 'url(#arrow)', 'data-from': edge.from, 'data-to': edge.to }),
    );
  }
  svg.append(edges);
  /** @type {Map<string, SVGElement>} */
  const nodes = new Map();
  const group = s('g', { class: 'nodes' });
  for (const node of layout.nodes) {
    const g = s(
      'g',
      {
        class: 'node',
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
    if (id && (event.key === 'Enter' || event.key === ' ')) onSelect(id);
  });
  /** @type {SVGElement | undefined} */
  let selected;
  return {
    element: svg,
    setStatus(id, status) {
      const g = nodes.get(id);
      if (g && g.getAttribute('data-status') !== status) g.setAttribute('data-status', status);
    },
    select(id) {
      selected?.classList.remove('selected');
      selected = id === undefined ? undefined : nodes.get(id);
      selected?.classList.add('selected');
    },
  };
}

/** @param {string} text @param {number} length */
function clip(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
