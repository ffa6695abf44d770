// @ts-check
/**
 * A session's transcript: user and bot turns, the bot's tool calls with their arguments and results, and the
 * controllers' guidance and verdicts inline, in the order they happened; status, procedure and totals above.
 */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { dollars } from '../format.js';
import { codeBlock, pager, stats, put } from './page-parts.js';

const LIMIT = 500;
const REFRESH_MS = 3000;

/** @type {import('../routes.js').Page} */
export async function renderSessionPage(main, [sessionId], signal) {
  const id = sessionId ?? '';
  let offset = 0;
  const head = h('div');
  const body = h('div', { class: 'transcript', id: 'transcript' });
  put(main, head, body);
  let active = false;
  let seen = -1;
  async function load() {
    const data = await getJson(`/api/sessions/${encodeURIComponent(id)}?offset=${offset}&limit=${LIMIT}`, signal);
    const { session, totals } = data;
    active = session.status === 'active';
    // Redrawn only when something was said, so an open <details> stays open while nothing changes.
    if (data.entriesTotal === seen && seen !== -1) return;
    seen = data.entriesTotal;
    clear(head);
    put(
      head,
      h(
        'div',
        { class: 'toolbar' },
        h('a', { href: '#/sessions' }, '‹ sessions'),
        h('h1', {}, session.procedure),
        h('span', { class: `badge ${session.status}` }, session.status),
      ),
      stats([
        ['session', session.sessionId],
        ['model', session.model],
        ['started', when(session.createdAt)],
        ['turns', totals.turns],
        ['tool calls', totals.toolCalls],
        ['failed calls', totals.failedToolCalls],
        ...(totals.simulatedToolCalls > 0
          ? [/** @type {[string, number]} */ (['simulated calls', totals.simulatedToolCalls])]
          : []),
        ['refused by controllers', totals.rejections],
        ['run without preconditions', totals.violationsExecuted],
        ['model calls', totals.modelCalls],
        ['tokens', (totals.inputTokens + totals.outputTokens).toLocaleString()],
        ['cost', dollars(totals.costUsd)],
      ]),
      data.controllers.length > 0
        ? h(
            'p',
            { class: 'muted' },
            `controllers: ${data.controllers.map((/** @type {any} */ c) => c.name).join(', ')}`,
          )
        : null,
      data.simulatedApis
        ? h(
            'p',
            { class: 'muted', id: 'simulated-apis' },
            `simulated APIs, answered by ${data.apiModel} and not by the APIs: ${data.simulatedApis.join(', ')}`,
          )
        : null,
    );
    clear(body);
    let turn = -1;
    for (const entry of data.entries) {
      if (entry.turn !== turn && entry.role === 'user') {
        turn = entry.turn;
        put(body, h('div', { class: 'turn-mark muted' }, `turn ${turn}`));
      }
      put(body, entryView(entry));
    }
    if (data.entries.length === 0) put(body, h('p', { class: 'muted empty' }, 'Nothing said yet in this session.'));
    put(
      body,
      pager(offset, LIMIT, data.entriesTotal, (next) => {
        offset = next;
        seen = -1;
        void load();
      }),
    );
  }
  await load();
  // A chat going on in another terminal appears turn by turn.
  const timer = setInterval(() => {
    if (active) void load().catch(() => {});
  }, REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

/** @param {any} entry */
function entryView(entry) {
  switch (entry.role) {
    case 'user':
      return h(
        'div',
        { class: 'msg user' },
        h('span', { class: 'who' }, 'user'),
        h('div', { class: 'text' }, entry.text),
        entry.oow ? h('span', { class: 'tag' }, `out of workflow: ${entry.oow.category}/${entry.oow.subtype}`) : null,
      );
    case 'user-refused':
      return h(
        'div',
        { class: 'msg user refused' },
        h('span', { class: 'who' }, 'user'),
        `(message refused: ${entry.reason})`,
      );
    case 'bot':
      return h(
        'div',
        { class: 'msg bot' },
        h('span', { class: 'who' }, 'bot'),
        h('div', { class: 'text' }, entry.text),
      );
    case 'thought':
      return h('div', { class: 'aside thought' }, h('span', { class: 'who' }, 'thought'), entry.text);
    case 'guidance':
      return h('div', { class: 'aside guidance' }, h('span', { class: 'who' }, entry.controller), entry.text);
    case 'verdict':
      return h(
        'div',
        { class: `aside verdict ${entry.accepted ? 'accept' : 'refuse'}` },
        h('b', {}, entry.accepted ? '✓ accepted' : '✗ refused'),
        ` ${entry.action} — ${entry.controller}`,
        entry.reason ? h('div', { class: 'reason' }, entry.reason) : null,
      );
    case 'tool': {
      const outcome =
        entry.ok === undefined ? 'no result recorded' : entry.ok ? 'ok' : `error: ${entry.error ?? 'failed'}`;
      return h(
        'details',
        { class: `tool-call ${entry.ok === false ? 'failed' : ''}` },
        h(
          'summary',
          {},
          h('b', {}, entry.name),
          h('span', { class: 'muted' }, `(${oneLine(entry.args, 100)})`),
          ' → ',
          h(
            'span',
            { class: entry.ok === false ? 'error' : 'muted' },
            entry.ok && entry.result !== undefined ? oneLine(entry.result, 100) : outcome,
          ),
          entry.simulated
            ? h('span', { class: 'tag sim', title: 'answered by a model, not by the API' }, 'simulated')
            : null,
          entry.preconditionsMet ? null : h('span', { class: 'tag warn' }, 'preconditions not met'),
        ),
        h('div', { class: 'label muted' }, 'arguments'),
        codeBlock(entry.args),
        entry.result !== undefined ? h('div', { class: 'label muted' }, 'result') : null,
        entry.result !== undefined ? codeBlock(entry.result) : null,
      );
    }
    case 'end':
      return h(
        'div',
        { class: 'end muted' },
        `session ended: ${entry.reason === 'user' ? 'the user left' : entry.reason === 'bot' ? 'the bot closed it' : entry.reason}`,
      );
    case 'budget':
      return h('div', { class: 'end muted' }, `stopped by the budget: ${entry.exceeded} (${entry.field})`);
    default:
      return h('div', { class: 'muted' }, String(entry.role));
  }
}

/** JSON text on one line, cut: the summary of a tool call; the full text is inside. @param {string} text @param {number} length */
function oneLine(text, length) {
  const line = text.replace(/\s+/g, ' ');
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}
