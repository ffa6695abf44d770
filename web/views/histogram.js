// @ts-check
/**
 * A histogram of scores in [0, 1] as hand-drawn SVG: one group of bars per bin, one colour per series, a count
 * axis and a legend. Counts come from the server (bins of equal width; the last includes 1).
 */
import { h, s } from '../dom.js';

const WIDTH = 560;
const HEIGHT = 220;
const PAD = { left: 40, right: 10, top: 12, bottom: 34 };

/** @param {{ title: string, bins: number, series: { name: string, counts: number[] }[] }} data */
export function drawHistogram(data) {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const max = Math.max(1, ...data.series.flatMap((series) => series.counts));
  const groupW = plotW / data.bins;
  const barW = Math.max(2, (groupW - 6) / Math.max(1, data.series.length));
  const svg = s('svg', {
    class: 'histogram',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    width: WIDTH,
    height: HEIGHT,
    role: 'img',
    'aria-label': data.title,
  });
  // Count axis: 0, half, max.
  for (const value of [0, Math.round(max / 2), max]) {
    const y = PAD.top + plotH - (value / max) * plotH;
    svg.append(
      s('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: 'grid' }),
      s('text', { x: PAD.left - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, String(value)),
    );
  }
  data.series.forEach((series, index) => {
    series.counts.forEach((count, bin) => {
      const barH = (count / max) * plotH;
      const x = PAD.left + bin * groupW + 3 + index * barW;
      svg.append(
        s(
          'rect',
          { x, y: PAD.top + plotH - barH, width: barW - 1, height: barH, class: `bar series-${index % 4}` },
          s(
            'title',
            {},
            `${series.name}: ${count} in [${(bin / data.bins).toFixed(1)}, ${((bin + 1) / data.bins).toFixed(1)}${bin === data.bins - 1 ? ']' : ')'}`,
          ),
        ),
      );
    });
  });
  for (let bin = 0; bin <= data.bins; bin += 2) {
    svg.append(
      s(
        'text',
        { x: PAD.left + bin * groupW, y: HEIGHT - PAD.bottom + 14, class: 'axis', 'text-anchor': 'middle' },
        (bin / data.bins).toFixed(1),
      ),
    );
  }
  const legend = h(
    'div',
    { class: 'legend' },
    ...data.series.map((series, index) => h('span', {}, h('i', { class: `swatch series-${index % 4}` }), series.name)),
  );
  return h('figure', { class: 'histogram-box' }, h('figcaption', {}, data.title), svg, legend);
}
