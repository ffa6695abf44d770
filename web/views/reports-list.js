// @ts-check
/** Eval reports: the files given to `weft serve --reports` and the bench scores under the home, each checked. */
import { getJson } from '../api.js';
import { h } from '../dom.js';
import { table } from './page-parts.js';

/** @type {import('../routes.js').Page} */
export async function renderReportsList(main, _params, signal) {
  const data = await getJson('/api/reports', signal);
  main.append(
    h('div', { class: 'toolbar' }, h('h1', {}, 'Eval reports')),
    table(
      ['report', 'kind', 'numbers', 'file'],
      data.reports.map((/** @type {any} */ report) => [
        h('a', { href: `#/reports/${encodeURIComponent(report.id)}` }, report.name),
        report.problem ? h('span', { class: 'badge failed' }, 'unreadable') : report.title,
        report.problem
          ? h('span', { class: 'error' }, report.problem)
          : report.stats
              .filter((/** @type {any} */ stat) => typeof stat.value === 'number')
              .slice(0, 4)
              .map((/** @type {any} */ stat) => `${stat.label} ${stat.value}`)
              .join(' · '),
        h('span', { class: 'muted' }, report.path),
      ]),
      {
        id: 'reports',
        empty:
          'No eval reports yet: save one with weft eval PREDICTIONS --gold GOLD --json > report.json and start weft serve --reports report.json (weft bench worfbench scores under the home are found by themselves)',
      },
    ),
  );
}
