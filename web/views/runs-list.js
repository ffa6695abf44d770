// @ts-check
/** The runs list: newest first, filter by status, refreshed every 2 s so a run started elsewhere appears. */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { dollars, duration } from '../format.js';
import { toolFailureText } from './attempt-label.js';

const STATUSES = ['', 'running', 'completed', 'failed', 'cancelled', 'interrupted'];
const REFRESH_MS = 2000;

/** @type {import('../routes.js').Page} */
export async function renderRunsList(main, _params, signal) {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  let status = query.get('status') ?? '';
  const select = h(
    'select',
    {
      id: 'status-filter',
      'aria-label': 'status',
      onchange: () => {
        status = /** @type {HTMLSelectElement} */ (select).value;
        history.replaceState(null, '', status ? `#/runs?status=${status}` : '#/runs');
        void refresh();
      },
    },
    ...STATUSES.map((value) => h('option', { value, selected: value === status }, value || 'all statuses')),
  );
  const body = h('tbody');
  const count = h('span', { class: 'muted' });
  main.append(
    h('div', { class: 'toolbar' }, h('h1', {}, 'Runs'), select, count),
    h(
      'table',
      { class: 'runs', id: 'runs' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['status', 'task', 'started', 'duration', 'calls', 'tokens', 'cost'].map((name) => h('th', {}, name)),
        ),
      ),
      body,
    ),
  );
  /** Numbers each refresh: an older answer that arrives after a newer one (the filter switched quickly) is dropped. */
  let asked = 0;
  async function refresh() {
    const mine = ++asked;
    const data = await getJson(`/api/runs?limit=200${status ? `&status=${encodeURIComponent(status)}` : ''}`, signal);
    if (mine !== asked) return;
    clear(body);
    count.textContent = `${data.total} run${data.total === 1 ? '' : 's'}`;
    for (const run of data.runs) {
      const href = `#/runs/${encodeURIComponent(run.runId)}`;
      body.append(
        h(
          'tr',
          { 'data-run': run.runId },
          h(
            'td',
            {},
            h('span', { class: `badge ${run.status}` }, run.status),
            run.toolCallsFailed > 0
              ? h(
                  'span',
                  { class: 'tag tool-warn', title: toolFailureText(run.toolCallsFailed) },
                  `⚠ ${run.toolCallsFailed}`,
                )
              : '',
          ),
          h('td', { class: 'task' }, h('a', { href }, firstLine(run.task) || run.runId)),
          h('td', {}, when(run.createdAt)),
          h('td', { class: 'num' }, duration(run.durationMs)),
          h('td', { class: 'num' }, run.calls),
          h('td', { class: 'num' }, (run.inputTokens + run.outputTokens).toLocaleString()),
          h('td', { class: 'num' }, dollars(run.costUsd)),
        ),
      );
    }
    if (data.runs.length === 0)
      body.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No runs yet: start one with weft run')));
  }
  await refresh();
  const timer = setInterval(() => void refresh().catch(() => {}), REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

/** @param {string} text */
function firstLine(text) {
  return text.split('\n')[0]?.slice(0, 160) ?? '';
}
