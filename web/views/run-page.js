// @ts-check
/**
 * One run, live: its totals, the plan's DAG coloured by status, the node panel, and the timeline of attempts. The
 * page folds the run's event stream (server-sent events; a dropped connection reconnects and resumes after the
 * last sequence). A new plan version fetches its layout and redraws the graph.
 */
import { getJson } from '../api.js';
import { clear, dollars, duration, h } from '../dom.js';
import { drawDag } from './dag-view.js';
import { drawGantt } from './gantt-view.js';
import { nodePanel } from './node-panel.js';
import { emptyFold, foldEvent } from './run-fold.js';

/** @type {import('../routes.js').Page} */
export async function renderRunPage(main, [runId], signal) {
  if (!runId) throw new Error('No run id in the address');
  const { run } = await getJson(`/api/runs/${encodeURIComponent(runId)}`, signal);
  const fold = emptyFold();
  const stats = h('div', { class: 'stats', id: 'run-stats' });
  const badge = h('span', { class: `badge ${run.status}`, id: 'run-status' }, run.status);
  const graphBox = h('div', { class: 'graph-box' }, h('p', { class: 'muted' }, 'Waiting for a plan…'));
  const panelBox = h('aside', { class: 'panel-box' }, h('p', { class: 'muted' }, 'Click a subtask to see it.'));
  const ganttBox = h('div', { class: 'gantt-box' });
  const root = h(
    'div',
    { class: 'run-page', id: 'run-page', 'data-run': runId, 'data-events': 0 },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Run ', h('code', {}, runId)), badge),
    h('pre', { class: 'task', id: 'run-task' }, run.task),
    h('p', { class: 'muted' }, `model ${run.model} · started ${new Date(run.createdAt).toLocaleString()}`),
    stats,
    h('div', { class: 'split' }, graphBox, panelBox),
    h('h2', {}, 'Timeline'),
    ganttBox,
  );
  main.append(root);

  /** @type {ReturnType<typeof drawDag> | undefined} */
  let dag;
  let drawnVersion = 0;
  /** @type {string | undefined} */
  let selected;
  let panelRequest = new AbortController();
  signal.addEventListener('abort', () => panelRequest.abort());

  async function select(/** @type {string} */ id) {
    selected = id;
    selectedStatus = fold.subtasks.get(id);
    dag?.select(id);
    panelRequest.abort();
    panelRequest = new AbortController();
    const panel = await nodePanel(runId ?? '', id, panelRequest.signal);
    if (selected !== id) return;
    clear(panelBox);
    panelBox.append(panel);
  }

  async function drawVersion(/** @type {number} */ version) {
    if (version === drawnVersion) return;
    const data = await getJson(`/api/runs/${encodeURIComponent(runId ?? '')}/layout?version=${version}`, signal);
    if (data.version < drawnVersion) return;
    drawnVersion = data.version;
    dag = drawDag(data, (id) => void select(id).catch(() => {}));
    clear(graphBox);
    graphBox.append(dag.element);
    for (const [id, status] of fold.subtasks) dag.setStatus(id, status);
    if (selected) dag.select(selected);
  }

  let scheduled = false;
  let ganttDrawn = 0;
  /** @type {string | undefined} */
  let selectedStatus;
  function render() {
    scheduled = false;
    if (fold.version > drawnVersion) void drawVersion(fold.version).catch(() => {});
    if (dag) for (const [id, status] of fold.subtasks) dag.setStatus(id, status);
    badge.textContent = fold.status;
    badge.className = `badge ${fold.status}`;
    root.setAttribute('data-events', String(fold.events));
    root.setAttribute('data-last-seq', String(fold.lastSeq));
    root.setAttribute('data-status', fold.status);
    clear(stats);
    const done = [...fold.subtasks.values()].filter((status) => status === 'completed').length;
    stats.append(
      stat('subtasks', `${done} / ${fold.subtasks.size} done`),
      stat('plan', `v${fold.version}`),
      stat('elapsed', duration(fold.lastAt)),
      stat('calls', String(fold.calls)),
      stat('tokens', (fold.inputTokens + fold.outputTokens).toLocaleString()),
      stat('cost', dollars(fold.costUsd)),
      fold.toolCalls > 0 ? stat('tool calls', String(fold.toolCalls)) : '',
      fold.reason ? stat('why', fold.reason) : '',
    );
    // The timeline is the costly redraw: at most twice a second.
    if (performance.now() - ganttDrawn >= 500 || fold.status !== 'running') {
      ganttDrawn = performance.now();
      clear(ganttBox);
      ganttBox.append(drawGantt(fold));
    } else if (!scheduled) {
      scheduled = true;
      setTimeout(() => requestAnimationFrame(render), 500);
    }
    const status = selected === undefined ? undefined : fold.subtasks.get(selected);
    if (selected !== undefined && status !== selectedStatus) {
      selectedStatus = status;
      void select(selected).catch(() => {});
    }
  }

  const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
  source.addEventListener('weft', (message) => {
    const event = /** @type {MessageEvent} */ (message);
    if (!foldEvent(fold, Number(event.lastEventId), JSON.parse(event.data))) return;
    if (!scheduled) {
      scheduled = true;
      // Coalesce: a burst of thousands of events redraws once per frame, not once per event.
      requestAnimationFrame(render);
    }
  });
  signal.addEventListener('abort', () => source.close());
  render();
}

/** @param {string} label @param {string} value */
function stat(label, value) {
  return h('div', { class: 'stat' }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));
}
