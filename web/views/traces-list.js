// @ts-check
/** Execution traces (distillation): newest first, filter by success. */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { dollars } from '../format.js';
import { table, put } from './page-parts.js';

/** @type {import('../routes.js').Page} */
export async function renderTracesList(main, _params, signal) {
  let success = '';
  const holder = h('div');
  const select = h(
    'select',
    {
      'aria-label': 'success',
      onchange: () => {
        success = /** @type {HTMLSelectElement} */ (select).value;
        void refresh();
      },
    },
    h('option', { value: '' }, 'all traces'),
    h('option', { value: 'true' }, 'successful'),
    h('option', { value: 'false' }, 'unsuccessful'),
  );
  put(main, h('div', { class: 'toolbar' }, h('h1', {}, 'Traces'), select), holder);
  async function refresh() {
    const data = await getJson(`/api/traces?limit=200${success ? `&success=${success}` : ''}`, signal);
    clear(holder);
    put(
      holder,
      table(
        ['', 'trace', 'task', 'mode', 'model', 'tool calls', 'tokens', 'cost', 'when'],
        data.traces.map((/** @type {any} */ trace) => [
          h('span', { class: `badge ${trace.success ? 'completed' : 'failed'}` }, trace.success ? 'success' : 'failed'),
          h('a', { href: `#/traces/${encodeURIComponent(trace.traceId)}` }, trace.traceId),
          h('span', { class: 'task' }, trace.taskKey ? `[${trace.taskKey}] ${trace.task}` : trace.task),
          trace.mode,
          trace.model,
          trace.calls,
          trace.tokens,
          dollars(trace.costUsd),
          when(trace.createdAt),
        ]),
        { id: 'traces', empty: 'No traces yet: record one with weft solve TASK --tools TOOLS.yaml --model M' },
      ),
      data.more
        ? h('p', { class: 'muted' }, 'The newest 200 are listed; there are more (weft traces --limit N).')
        : null,
    );
  }
  await refresh();
}
