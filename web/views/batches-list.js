// @ts-check
/** Batches of `weft exec --inputs`: newest first, refreshed every 3 s so a running batch counts up. */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { pager, table, put } from './page-parts.js';

const LIMIT = 50;
const REFRESH_MS = 3000;

/** @type {import('../routes.js').Page} */
export async function renderBatchesList(main, _params, signal) {
  let offset = 0;
  const holder = h('div');
  put(main, h('div', { class: 'toolbar' }, h('h1', {}, 'Batches')), holder);
  async function refresh() {
    const data = await getJson(`/api/batches?limit=${LIMIT}&offset=${offset}`, signal);
    clear(holder);
    put(
      holder,
      table(
        ['status', 'batch', 'workflow', 'cases', 'passed', 'failed', 'errors', 'not run', 'started'],
        data.batches.map((/** @type {any} */ batch) =>
          batch.problem
            ? [
                h('span', { class: 'badge failed' }, batch.status),
                batch.batchId,
                h('span', { class: 'error' }, batch.problem),
                null,
                null,
                null,
                null,
                null,
                null,
              ]
            : [
                h('span', { class: `badge ${batch.status}` }, batch.status),
                h('a', { href: `#/batches/${encodeURIComponent(batch.batchId)}` }, batch.batchId),
                baseName(batch.workflow),
                batch.cases,
                batch.passed,
                batch.failed,
                batch.errors,
                batch.notRun,
                when(batch.createdAt),
              ],
        ),
        {
          id: 'batches',
          empty: 'No batches yet: run a workflow over many cases with weft exec WORKFLOW.json --inputs cases.jsonl',
        },
      ),
      pager(offset, LIMIT, data.total, (next) => {
        offset = next;
        void refresh();
      }),
    );
  }
  await refresh();
  const timer = setInterval(() => void refresh().catch(() => {}), REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

/** @param {string} path */
export function baseName(path) {
  return path.split(/[\\/]/).pop() ?? path;
}
