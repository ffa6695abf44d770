// @ts-check
/** A batch: its counts, the workflow's graph, and the results (paged, filter by status; errors with node and field). */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { baseName } from './batches-list.js';
import { codeBlock, pager, stats, table, put } from './page-parts.js';
import { drawWorkflow } from './workflow-graph.js';

const LIMIT = 50;

/** @type {import('../routes.js').Page} */
export async function renderBatchPage(main, [batchId], signal) {
  const id = encodeURIComponent(batchId ?? '');
  const data = await getJson(`/api/batches/${id}`, signal);
  const { batch, graph } = data;
  put(
    main,
    h(
      'div',
      { class: 'toolbar' },
      h('a', { href: '#/batches' }, '‹ batches'),
      h('h1', {}, batch.batchId),
      h('span', { class: `badge ${batch.status}` }, batch.status),
    ),
  );
  if (batch.problem) {
    put(main, h('p', { class: 'error' }, batch.problem));
    return;
  }
  put(
    main,
    stats([
      ['workflow', baseName(batch.workflow)],
      ['cases', batch.cases],
      ['passed', batch.passed],
      ['failed', batch.failed],
      ['errors', batch.errors],
      ['not run', batch.notRun],
      ['interrupted', batch.interrupted || undefined],
      ['running now', batch.status === 'running' ? batch.startedWithoutResult : undefined],
      ['unreadable log lines', batch.unreadableLines || undefined],
      ['started', when(batch.createdAt)],
      ['concurrency', batch.options?.concurrency],
    ]),
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
            : row.unreadable
              ? h('span', { class: 'muted' }, 'record unreadable')
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
}
