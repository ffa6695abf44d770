// @ts-check
/**
 * One eval report: its numbers, its tables (per scenario, per variant, per item) and its histograms. A cell that
 * names a file the report keeps (a distill eval's workflow, traces, results) links to that file's page.
 */
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
      table(
        shown.columns,
        shown.rows.map((/** @type {any[]} */ row) => row.map((cell) => linked(reportId ?? '', cell))),
        { className: 'report-table' },
      ),
      shown.more ? h('p', { class: 'muted' }, `${shown.more} more rows are in the file.`) : null,
    );
  }
}

/**
 * A cell as the table shows it: `{ text, file }` becomes a link to the file's page; anything else is itself.
 * @param {string} reportId @param {any} cell @returns {Node | string | number | null}
 */
function linked(reportId, cell) {
  if (cell === null || typeof cell !== 'object') return cell;
  if (typeof cell.text !== 'string' || typeof cell.file !== 'string') return null;
  return h('a', { href: reportFileHref(reportId, cell.file) }, cell.text);
}

/** @param {string} reportId @param {string} file */
export function reportFileHref(reportId, file) {
  return `#/reports/${encodeURIComponent(reportId)}/file/${encodeURIComponent(file)}`;
}
