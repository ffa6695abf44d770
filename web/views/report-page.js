// @ts-check
/** One eval report: its numbers, its tables (per scenario, per variant, per item) and its histograms. */
import { getJson } from '../api.js';
import { h } from '../dom.js';
import { drawHistogram } from './histogram.js';
import { stats, table, put } from './page-parts.js';

/** @type {import('../routes.js').Page} */
export async function renderReportPage(main, [reportId], signal) {
  const data = await getJson(`/api/reports/${encodeURIComponent(reportId ?? '')}`, signal);
  put(main, h('div', { class: 'toolbar' }, h('a', { href: '#/reports' }, '‹ reports'), h('h1', {}, data.path)));
  if (data.problem) {
    put(main, h('p', { class: 'error', id: 'report-problem' }, data.problem));
    return;
  }
  const { report } = data;
  put(
    main,
    h('p', { class: 'muted' }, report.title),
    stats(report.stats.map((/** @type {any} */ stat) => [stat.label, stat.value])),
    h('div', { class: 'histograms' }, ...report.histograms.map(drawHistogram)),
  );
  for (const shown of report.tables) {
    put(
      main,
      h('h2', {}, shown.title),
      table(shown.columns, shown.rows, { className: 'report-table' }),
      shown.more ? h('p', { class: 'muted' }, `${shown.more} more rows are in the file.`) : null,
    );
  }
}
