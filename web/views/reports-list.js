// @ts-check
/** Eval reports: the files given to `weft serve --reports` and the bench scores under the home, each checked. */
import { getJson } from '../api.js';
import { h } from '../dom.js';
import { formatNumber } from '../format.js';
import { table, put } from './page-parts.js';

/** @type {import('../routes.js').Page} */
export async function renderReportsList(main, _params, signal) {
  const data = await getJson('/api/reports', signal);
  put(
    main,
    h('div', { class: 'toolbar' }, h('h1', {}, 'Eval reports')),
    table(
      ['report', 'kind', 'numbers', 'file'],
      data.reports.map((/** @type {any} */ report) => [
        h('a', { href: `#/reports/${encodeURIComponent(report.id)}` }, report.name),
        report.problem ? h('span', { class: 'badge failed' }, 'unreadable') : report.title,
        report.problem ? h('span', { class: 'error' }, report.problem) : numbers(report.stats),
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

/** The headline numbers as text; a report with none (a bench cancelled before scoring) says so. @param {any[]} stats */
function numbers(stats) {
  const shown = headline(stats);
  if (shown.length === 0) return h('span', { class: 'muted' }, 'no scores');
  return shown.map((/** @type {any} */ stat) => `${stat.label} ${formatNumber(stat.value)}`).join(' · ');
}

/** Up to four numbers, the scores first (f1, accuracy, rates), then counts. @param {any[]} stats */
function headline(stats) {
  const numbers = stats.filter((stat) => typeof stat.value === 'number');
  const score = (/** @type {any} */ stat) => /f1|accuracy|rate/i.test(stat.label);
  return [...numbers.filter(score), ...numbers.filter((stat) => !score(stat))].slice(0, 4);
}
