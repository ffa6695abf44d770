// @ts-check
/**
 * An executable workflow's graph as SVG, from the positions the server computed with dagre. Each node is a
 * `<g class="wf-node" data-kind="…">` whose shape says its kind: start and end round, a condition a diamond, a set
 * a dashed box, a forEach a doubled box, a tool a plain box. Branch edges are dashed and labelled.
 */
import { arrowDefs, clip, pathThrough } from './svg-parts.js';
import { s } from '../dom.js';

/** @param {any} layout */
export function drawWorkflow(layout) {
  const width = Math.max(layout.width, 1);
  const height = Math.max(layout.height, 1);
  const svg = s('svg', {
    class: 'workflow',
    id: 'workflow-graph',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': 'workflow graph',
  });
  svg.append(arrowDefs('wf-arrow'));
  const edges = s('g', { class: 'edges' });
  for (const edge of layout.edges) {
    if (edge.points.length === 0) continue;
    const d = pathThrough(edge.points);
    edges.append(s('path', { d, class: `wf-edge ${edge.kind}`, 'marker-end': 'url(#wf-arrow)' }));
    if (edge.label) {
      const middle = edge.points[Math.floor(edge.points.length / 2)];
      edges.append(s('text', { x: middle.x + 4, y: middle.y - 3, class: 'wf-label' }, edge.label));
    }
  }
  svg.append(edges);
  const nodes = s('g', { class: 'nodes' });
  for (const node of layout.nodes) {
    const w = node.width;
    const hh = node.height;
    const round = node.kind === 'start' || node.kind === 'end';
    nodes.append(
      s(
        'g',
        {
          class: 'wf-node',
          'data-id': node.id,
          'data-kind': node.kind,
          transform: `translate(${node.x - w / 2},${node.y - hh / 2})`,
        },
        shape(node.kind, w, hh),
        s(
          'text',
          { x: round ? w / 2 : 10, y: round ? hh / 2 + 4 : 19, class: 'id', 'text-anchor': round ? 'middle' : 'start' },
          clip(round ? node.id : `${node.kind} ${node.id}`, round ? 10 : 28),
        ),
        round ? null : s('text', { x: 10, y: 36, class: 'detail' }, clip(node.detail, 27)),
        s('title', {}, `${node.id} (${node.kind})${node.detail ? `\n${node.detail}` : ''}`),
      ),
    );
  }
  svg.append(nodes);
  return svg;
}

/** @param {string} kind @param {number} w @param {number} hh */
function shape(kind, w, hh) {
  switch (kind) {
    case 'start':
    case 'end':
      return s('rect', { width: w, height: hh, rx: hh / 2, class: 'wf-shape' });
    case 'condition':
      return s('polygon', {
        class: 'wf-shape',
        points: `12,0 ${w - 12},0 ${w},${hh / 2} ${w - 12},${hh} 12,${hh} 0,${hh / 2}`,
      });
    case 'forEach':
      return s(
        'g',
        {},
        s('rect', { x: 4, y: 4, width: w - 4, height: hh - 4, rx: 4, class: 'wf-shape shadow' }),
        s('rect', { width: w - 4, height: hh - 4, rx: 4, class: 'wf-shape' }),
      );
    default:
      return s('rect', { width: w, height: hh, rx: 4, class: 'wf-shape' });
  }
}
