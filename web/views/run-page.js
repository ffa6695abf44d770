// @ts-check
/**
 * One run, live: its totals and per-status counts, the plan's DAG coloured by status (zoomable, with a legend),
 * the node panel, and the timeline of attempts. The page folds the run's event stream (server-sent events; a
 * dropped connection reconnects and resumes after the last sequence). A new plan version fetches its layout and
 * redraws the graph with the statuses kept. `?task=<id>` in the address opens that subtask's panel.
 */
import { getJson } from '../api.js';
import { clear, h, showBidiControls } from '../dom.js';
import { dollars, duration } from '../format.js';
import { CANVAS_FROM, drawDagCanvas, subtaskFinder } from './dag-canvas.js';
import { createZoom, drawDag } from './dag-view.js';
import { drawGantt } from './gantt-view.js';
import { openLiveStream } from './live-stream.js';
import { nodePanel } from './node-panel.js';
import { toolFailureText } from './attempt-label.js';
import { completedWithToolFailures, emptyFold, foldEvent, statusCounts } from './run-fold.js';

/** The task text shows this much until "show all". */
const TASK_CLIP_CHARS = 400;
const TASK_CLIP_LINES = 6;
/** How many failed subtasks the reason box lists by name. */
const MAX_FAILURES = 20;
/** With no event for this long, ask the store again: a run whose process died stays `running` in the log. */
const QUIET_RECHECK_MS = 5000;

/** @type {import('../routes.js').Page} */
export async function renderRunPage(main, [runId], signal) {
  if (!runId) throw new Error('No run id in the address');
  const api = `/api/runs/${encodeURIComponent(runId)}`;
  const here = `#/runs/${encodeURIComponent(runId)}`;
  const { run, planVersions } = await getJson(api, signal);
  /** The store's status: `interrupted` (process gone) is known only from it, not from the events. */
  let storedStatus = run.status;
  const fold = emptyFold();
  const stats = h('div', { class: 'stats', id: 'run-stats' });
  const counts = h('div', { class: 'status-counts', id: 'status-counts' });
  const reasonBox = h('div', { class: 'reason-box', id: 'run-reason', hidden: true });
  /** Why the page is not live (stream refused, server away), hidden while it is. */
  const streamNote = h('p', { class: 'stream-note', id: 'stream-note', role: 'status', hidden: true });
  const badge = h('span', { class: `badge ${run.status}`, id: 'run-status' }, run.status);
  /** Beside the status: a run that completed is not all green when some of its tool calls failed. */
  const toolWarn = h('span', { class: 'tag tool-warn', id: 'run-tool-warn', hidden: true });
  const graphBox = h('div', { class: 'graph-box' }, h('p', { class: 'muted' }, 'Waiting for a plan…'));
  const zoom = createZoom(graphBox);
  /** Jumping to a subtask by id: shown for plans drawn on a canvas, whose nodes the keyboard cannot reach. */
  const finderBox = subtaskFinder((id) => {
    if (!fold.plan.has(id)) return false;
    void select(id).catch(() => {});
    return true;
  });
  finderBox.hidden = true;
  const panelBox = h('aside', { class: 'panel-box' }, h('p', { class: 'muted' }, 'Click a subtask to see it.'));
  const ganttBox = h('div', { class: 'gantt-box' });
  const plansLink = h('a', { href: `${here}/plans`, id: 'plans-link' }, planLinkText(planVersions.length));
  const teamsLink = h('a', { href: `${here}/teams`, id: 'teams-link', hidden: true }, 'teams');
  const root = h(
    'div',
    { class: 'run-page', id: 'run-page', 'data-run': runId, 'data-events': 0 },
    h(
      'div',
      { class: 'toolbar' },
      h('h1', {}, 'Run ', h('code', {}, runId)),
      badge,
      toolWarn,
      h('nav', { class: 'run-links' }, plansLink, teamsLink),
    ),
    taskText(run.task),
    h('p', { class: 'muted' }, `model ${run.model} · started ${new Date(run.createdAt).toLocaleString()}`),
    streamNote,
    reasonBox,
    stats,
    h('div', { class: 'graph-tools' }, counts, finderBox, zoom.element),
    h('div', { class: 'split' }, graphBox, panelBox),
    h('h2', {}, 'Timeline'),
    ganttBox,
  );
  main.append(root);

  /** @type {ReturnType<typeof drawDag> | ReturnType<typeof drawDagCanvas> | undefined} */
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
    const request = new AbortController();
    panelRequest = request;
    /** @type {HTMLElement} */
    let panel;
    try {
      panel = await nodePanel(runId ?? '', id, request.signal);
    } catch (error) {
      if (request.signal.aborted) return;
      // Said in the panel: `?task=` naming no subtask (a stale link, a typo) used to leave the panel blank.
      panel = h('p', { class: 'error', id: 'panel-error' }, error instanceof Error ? error.message : String(error));
    }
    if (selected !== id) return;
    clear(panelBox);
    panelBox.append(panel);
  }

  /** The newest version whose layout was asked for: renders during the fetch do not ask again. */
  let requestedVersion = 0;
  async function drawVersion(/** @type {number} */ version) {
    if (version <= requestedVersion) return;
    requestedVersion = version;
    const data = await getJson(`${api}/layout?version=${version}`, signal).catch((error) => {
      if (requestedVersion === version) requestedVersion = drawnVersion;
      throw error;
    });
    if (data.version < drawnVersion) return;
    drawnVersion = data.version;
    plansLink.textContent = planLinkText(data.version);
    const onSelect = (/** @type {string} */ id) => void select(id).catch(() => {});
    // A large plan on a canvas: as SVG its tens of thousands of elements take seconds to lay out and paint.
    const large = data.layout.nodes.length >= CANVAS_FROM;
    const drawn = large ? drawDagCanvas(data, onSelect, graphBox) : drawDag(data, onSelect);
    dag = drawn;
    clear(graphBox);
    graphBox.append(drawn.element);
    zoom.attach(drawn.element, data.layout, 'resize' in drawn ? drawn.resize : undefined);
    finderBox.hidden = !large;
    // Statuses are the fold's, not the drawing's: a redrawn plan shows every subtask as it stands.
    for (const [id, status] of fold.subtasks) dag.setStatus(id, status);
    for (const [id, count] of fold.toolFailures) dag.setToolFailures(id, count);
    if (selected) dag.select(selected);
  }

  let scheduled = false;
  let ganttDrawn = 0;
  /** The timeline's peak of attempts running at once, as of its last redraw. */
  let maxParallel = 0;
  let lastEventAt = performance.now();
  /** @type {string | undefined} */
  let selectedStatus;
  function render() {
    scheduled = false;
    if (fold.version > drawnVersion) void drawVersion(fold.version).catch(() => {});
    if (dag) {
      for (const [id, status] of fold.subtasks) dag.setStatus(id, status);
      for (const [id, count] of fold.toolFailures) dag.setToolFailures(id, count);
    }
    // The log's end wins; without one the store's status stands (interrupted: the process is gone).
    const status = fold.status === 'running' && storedStatus !== 'running' ? storedStatus : fold.status;
    badge.textContent = status;
    badge.className = `badge ${status}`;
    toolWarn.hidden = fold.toolCallsFailed === 0;
    toolWarn.textContent = `⚠ ${toolFailureText(fold.toolCallsFailed)}`;
    root.setAttribute('data-events', String(fold.events));
    root.setAttribute('data-last-seq', String(fold.lastSeq));
    root.setAttribute('data-status', status);
    teamsLink.hidden = fold.teams === 0;
    teamsLink.textContent = `teams (${fold.teams})`;
    showReason(status);
    if (!dag && status !== 'running' && fold.version === 0 && fold.events > 0) {
      clear(graphBox);
      graphBox.append(h('p', { class: 'muted' }, 'No plan was recorded for this run.'));
    }
    // The counts, each with its colour swatch, double as the graph's legend.
    clear(counts);
    const byStatus = statusCounts(fold);
    for (const [name, count] of byStatus)
      counts.append(
        h(
          'span',
          { class: 'count', 'data-status': name },
          h('span', { class: `swatch ${name.replace(' ', '-')}` }),
          `${count} ${name}`,
        ),
      );
    const marked = completedWithToolFailures(fold);
    if (marked.size > 0)
      counts.append(
        h(
          'span',
          {
            class: 'count',
            'data-status': 'tool-failures',
            title: `completed although some of their tool calls failed: ${[...marked.keys()].join(', ')}`,
          },
          h('span', { class: 'swatch tool-failures' }),
          `⚠ ${marked.size} completed with failed tool calls`,
        ),
      );
    clear(stats);
    stats.append(
      stat('subtasks', `${byStatus.get('completed') ?? 0} / ${fold.plan.size} done`),
      stat('plan', `v${fold.version}`),
      stat('elapsed', duration(fold.lastAt)),
      stat('calls', String(fold.calls)),
      stat('tokens', (fold.inputTokens + fold.outputTokens).toLocaleString()),
      stat('cost', dollars(fold.costUsd)),
      fold.toolCalls > 0
        ? stat(
            'tool calls',
            fold.toolCallsFailed > 0 ? `${fold.toolCalls} (${fold.toolCallsFailed} failed)` : String(fold.toolCalls),
          )
        : '',
    );
    // The timeline is the costly redraw: at most twice a second.
    if (performance.now() - ganttDrawn >= 500 || fold.status !== 'running') {
      ganttDrawn = performance.now();
      clear(ganttBox);
      ganttBox.append(drawGantt(fold));
      maxParallel = Number(ganttBox.firstElementChild?.getAttribute('data-max-parallel')) || 0;
    } else if (!scheduled) {
      scheduled = true;
      setTimeout(() => requestAnimationFrame(render), 500);
    }
    stats.append(stat('max parallel', String(maxParallel)));
    const current = selected === undefined ? undefined : fold.subtasks.get(selected);
    if (selected !== undefined && current !== selectedStatus) {
      selectedStatus = current;
      void select(selected).catch(() => {});
    }
  }

  /** Why a run ended the way it did: the run's reason, and each failed subtask's. @param {string} status */
  function showReason(status) {
    const failures = [...fold.errors].filter(([id]) => fold.plan.has(id) && fold.subtasks.get(id) === 'failed');
    const why =
      fold.reason ??
      (status === 'interrupted'
        ? `The process that ran it has exited without finishing the run; weft resume ${runId} continues it.`
        : undefined);
    if (status === 'running' && failures.length === 0) {
      reasonBox.hidden = true;
      return;
    }
    if (!why && failures.length === 0) {
      reasonBox.hidden = true;
      return;
    }
    reasonBox.hidden = false;
    reasonBox.className = `reason-box ${status}`;
    clear(reasonBox);
    if (why) reasonBox.append(h('p', { class: 'why' }, h('b', {}, `${status}: `), why));
    if (failures.length > 0) {
      const list = h('ul', { class: 'failures' });
      for (const [id, error] of failures.slice(0, MAX_FAILURES))
        list.append(
          h(
            'li',
            {},
            h(
              'a',
              {
                href: `${here}?task=${encodeURIComponent(id)}`,
                'data-task': id,
                onclick: (/** @type {Event} */ event) => {
                  event.preventDefault();
                  void select(id).catch(() => {});
                },
              },
              id,
            ),
            `: ${error.length > 300 ? `${error.slice(0, 299)}…` : error}`,
          ),
        );
      if (failures.length > MAX_FAILURES)
        list.append(h('li', { class: 'muted' }, `and ${failures.length - MAX_FAILURES} more`));
      reasonBox.append(list);
    }
  }

  // The newest plan's layout is asked for now, not once the stream has replayed the log up to its plan event: a
  // large run's log takes seconds to stream, and the drawing does not need it (statuses are applied as they fold).
  const newest = planVersions.at(-1)?.version;
  if (typeof newest === 'number') void drawVersion(newest).catch(() => {});

  openLiveStream(`${api}/events`, {
    signal,
    lastSeq: () => fold.lastSeq,
    onEvent(event) {
      if (!foldEvent(fold, Number(event.lastEventId), JSON.parse(event.data))) return;
      lastEventAt = performance.now();
      if (!scheduled) {
        scheduled = true;
        // Coalesce: a burst of thousands of events redraws once per frame, not once per event.
        requestAnimationFrame(render);
      }
    },
    onState({ state, message }) {
      streamNote.hidden = state === 'live' || (state === 'reconnecting' && fold.status !== 'running');
      streamNote.textContent = message;
      streamNote.setAttribute('data-state', state);
    },
  });
  const recheck = setInterval(() => {
    if (fold.status !== 'running' || performance.now() - lastEventAt < QUIET_RECHECK_MS) return;
    void getJson(api, signal)
      .then((fresh) => {
        if (fresh.run.status === storedStatus) return;
        storedStatus = fresh.run.status;
        render();
      })
      .catch(() => {});
  }, QUIET_RECHECK_MS);
  signal.addEventListener('abort', () => clearInterval(recheck));
  render();
  const wanted = new URLSearchParams(location.hash.split('?')[1] ?? '').get('task');
  if (wanted) void select(wanted).catch(() => {});
}

/** The task, clipped to a few lines with a button that shows the rest. @param {string} task */
function taskText(task) {
  const lines = task.split('\n');
  const long = task.length > TASK_CLIP_CHARS || lines.length > TASK_CLIP_LINES;
  const short = long ? `${lines.slice(0, TASK_CLIP_LINES).join('\n').slice(0, TASK_CLIP_CHARS)}…` : task;
  const text = h('pre', { class: 'task', id: 'run-task' }, short);
  if (!long) return text;
  let open = false;
  const button = h(
    'button',
    {
      type: 'button',
      id: 'task-toggle',
      onclick: () => {
        open = !open;
        text.textContent = showBidiControls(open ? task : short);
        button.textContent = open ? 'show less' : `show all (${task.length.toLocaleString()} characters)`;
      },
    },
    `show all (${task.length.toLocaleString()} characters)`,
  );
  return h('div', { class: 'task-box' }, text, button);
}

/** @param {number} versions */
function planLinkText(versions) {
  return versions > 1 ? `plan history (${versions} versions)` : 'plan history';
}

/** @param {string} label @param {string} value */
function stat(label, value) {
  return h('div', { class: 'stat' }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value));
}
