// @ts-check
/** A batch: its counts, the workflow's graph, and the results (paged, filter by status; errors with node and field). */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { baseName } from './batches-list.js';
import { codeBlock, pager, stats, table, put } from './page-parts.js';
import { drawWorkflow } from './workflow-graph.js';

const LIMIT = 50;
const REFRESH_MS = 3000;

/** @type {import('../routes.js').Page} */
export async function renderBatchPage(main, [batchId], signal) {
  const id = encodeURIComponent(batchId ?? '');
  const data = await getJson(`/api/batches/${id}`, signal);
  const { batch, graph } = data;
  const badge = h('span', { class: `badge ${batch.status}` }, batch.status);
  put(
    main,
    h('div', { class: 'toolbar' }, h('a', { href: '#/batches' }, '‹ batches'), h('h1', {}, batch.batchId), badge),
  );
  if (batch.problem) {
    put(main, h('p', { class: 'error' }, batch.problem));
    return;
  }
  const numbers = h('div');
  /** @param {any} shown */
  const drawNumbers = (shown) => {
    badge.className = `badge ${shown.status}`;
    badge.textContent = shown.status;
    clear(numbers);
    put(
      numbers,
      stats([
        ['workflow', baseName(shown.workflow)],
        ['cases', shown.cases],
        ['passed', shown.passed],
        ['failed', shown.failed],
        ['errors', shown.errors],
        ['not run', shown.notRun],
        ['interrupted', shown.interrupted || undefined],
        // Started without a result: running now, or (when nothing runs the batch) cut off, reported on the resume.
        ['running now', shown.status === 'running' ? shown.startedWithoutResult : undefined],
        ['cut off', shown.status !== 'running' ? shown.startedWithoutResult || undefined : undefined],
        ['started', when(shown.createdAt)],
        ['concurrency', shown.options?.concurrency],
      ]),
    );
  };
  drawNumbers(batch);
  put(
    main,
    numbers,
    h(
      'p',
      { class: 'muted' },
      `workflow ${batch.workflow} · cases ${batch.inputs}${batch.tools ? ` · tools ${batch.tools}` : ''}`,
    ),
    h('h2', {}, graph?.name ? `Workflow: ${graph.name}` : 'Workflow'),
    graph?.layout
      ? h('div', { class: 'graph-box' }, drawWorkflow(graph.layout))
      : h('p', { class: 'error' }, graph?.problem ?? 'No graph'),
  );
  let offset = 0;
  let status = '';
  const select = h(
    'select',
    {
      id: 'result-filter',
      'aria-label': 'status',
      onchange: () => {
        status = /** @type {HTMLSelectElement} */ (select).value;
        offset = 0;
        void load();
      },
    },
    ...['', 'passed', 'failed', 'error'].map((value) => h('option', { value }, value || 'all results')),
  );
  const holder = h('div');
  put(main, h('div', { class: 'toolbar' }, h('h2', {}, 'Results'), select), holder);
  async function load() {
    const page = await getJson(
      `/api/batches/${id}/results?offset=${offset}&limit=${LIMIT}${status ? `&status=${status}` : ''}`,
      signal,
    );
    clear(holder);
    put(
      holder,
      table(
        ['case', 'status', 'output', 'error', 'steps', 'tool calls'],
        page.results.map((/** @type {any} */ row) => [
          row.id === null ? '?' : String(row.id),
          h(
            'span',
            { class: `badge ${row.status === 'passed' ? 'completed' : 'failed'}` },
            row.interrupted ? `${row.status} (interrupted)` : row.status,
          ),
          row.output !== undefined ? codeBlock(row.output) : null,
          row.error
            ? h(
                'div',
                { class: 'error' },
                h('b', {}, row.error.code),
                row.error.field ? ` at ${row.error.field}` : '',
                h('div', {}, row.error.message),
              )
            : null,
          row.steps ?? null,
          row.toolCalls ?? null,
        ]),
        { id: 'batch-results', empty: status ? `No ${status} results.` : 'No results yet.' },
      ),
      pager(offset, LIMIT, page.total, (next) => {
        offset = next;
        void load();
      }),
    );
  }
  await load();
  // A running batch counts up without a reload; the graph is not asked for again.
  let running = batch.status === 'running';
  const timer = setInterval(() => {
    if (!running) return;
    void getJson(`/api/batches/${id}?graph=no`, signal)
      .then(async (next) => {
        running = next.batch.status === 'running';
        drawNumbers(next.batch);
        await load();
      })
      .catch(() => {});
  }, REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}
