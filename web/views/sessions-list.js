// @ts-check
/** Sessions (procedures): newest first, refreshed every 3 s so a `weft chat` elsewhere appears. */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { pager, table, put } from './page-parts.js';

const LIMIT = 100;
const REFRESH_MS = 3000;

/** @type {import('../routes.js').Page} */
export async function renderSessionsList(main, _params, signal) {
  let offset = 0;
  const holder = h('div');
  const count = h('span', { class: 'muted' });
  put(main, h('div', { class: 'toolbar' }, h('h1', {}, 'Sessions'), count), holder);
  async function refresh() {
    const data = await getJson(`/api/sessions?limit=${LIMIT}&offset=${offset}`, signal);
    count.textContent = `${data.total} session${data.total === 1 ? '' : 's'}`;
    clear(holder);
    put(
      holder,
      table(
        ['status', 'session', 'procedure', 'turns', 'model', 'started', 'last activity'],
        data.sessions.map((/** @type {any} */ session) => [
          h('span', { class: `badge ${session.status}` }, session.status),
          h('a', { href: `#/sessions/${encodeURIComponent(session.sessionId)}` }, session.sessionId),
          session.procedure,
          session.turns,
          session.model,
          when(session.createdAt),
          when(session.updatedAt),
        ]),
        {
          id: 'sessions',
          empty: 'No sessions yet: talk to a procedure with weft chat PROCEDURE.pdl.yaml --model M',
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
