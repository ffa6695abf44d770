// @ts-check
/**
 * `#/runs/<id>/plans[?v=N]`: a run's plan versions. A picker lists every version with its cause; the chosen
 * version is drawn beside the one before it, the older graph marking what was removed and the newer what was
 * added, changed (objective or role) or rewired (dependencies), with the same changes as a list below.
 */
import { getJson } from '../api.js';
import { clear, h, when } from '../dom.js';
import { createZoom, drawDag, legend } from './dag-view.js';
import { diffClasses, diffRows, textChange } from './plan-diff.js';

const DIFF_LEGEND = /** @type {[string, string][]} */ ([
  ['diff-added', 'added'],
  ['diff-removed', 'removed'],
  ['diff-changed', 'changed objective or role'],
  ['diff-rewired', 'rewired'],
]);

/** @type {import('../routes.js').Page} */
export async function renderPlanHistory(main, [runId], signal) {
  if (!runId) throw new Error('No run id in the address');
  const path = `/api/runs/${encodeURIComponent(runId)}`;
  const { versions } = await getJson(`${path}/plans`, signal);
  const back = `#/runs/${encodeURIComponent(runId)}`;
  const root = h(
    'div',
    { class: 'plan-history', id: 'plan-history', 'data-run': runId },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Plan history of run ', h('a', { href: back }, h('code', {}, runId)))),
  );
  main.append(root);
  if (versions.length === 0) {
    root.append(h('p', { class: 'muted' }, 'The run has no plan yet.'));
    return;
  }
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const wanted = Number(query.get('v'));
  let index = versions.findIndex((/** @type {any} */ version) => version.version === wanted);
  if (index < 0) index = versions.length - 1;

  const picker = h('ol', { class: 'versions', id: 'plan-versions' });
  const body = h('div', { class: 'version-body' });
  root.append(picker, legend(DIFF_LEGEND), body);

  function pick(/** @type {number} */ next) {
    index = next;
    history.replaceState(null, '', `${back}/plans?v=${versions[next].version}`);
    for (const [i, item] of [...picker.children].entries()) item.classList.toggle('active', i === next);
    void show().catch((error) => {
      if (signal.aborted) return;
      clear(body);
      body.append(h('p', { class: 'error' }, error instanceof Error ? error.message : String(error)));
    });
  }
  versions.forEach((/** @type {any} */ version, /** @type {number} */ i) => {
    picker.append(
      h(
        'li',
        { class: i === index ? 'active' : '', 'data-version': version.version },
        h(
          'button',
          { type: 'button', onclick: () => pick(i) },
          h('b', {}, `v${version.version}`),
          ` · ${version.workflow.subtasks.length} subtasks · ${summarize(version.diff)}`,
        ),
        h('div', { class: 'cause' }, version.cause),
      ),
    );
  });

  async function show() {
    const shown = index;
    const newer = versions[shown];
    const older = shown > 0 ? versions[shown - 1] : undefined;
    const [newerLayout, olderLayout] = await Promise.all([
      getJson(`${path}/layout?version=${newer.version}`, signal),
      older ? getJson(`${path}/layout?version=${older.version}`, signal) : undefined,
    ]);
    if (shown !== index) return;
    clear(body);
    const classes = diffClasses(newer.diff);
    const sides = h('div', { class: 'sides' });
    body.append(
      h('p', { class: 'cause', id: 'version-cause' }, `v${newer.version} (${when(newer.createdAt)}): ${newer.cause}`),
      sides,
    );
    if (older) sides.append(side(`v${older.version} (before)`, olderLayout, classes.before, 'older'));
    sides.append(side(`v${newer.version}`, newerLayout, classes.after, 'newer'));
    const rows = diffRows(newer.diff, older?.workflow, newer.workflow);
    body.append(h('h2', {}, older ? `Changes from v${older.version}` : 'The first plan'));
    if (!older) body.append(h('p', { class: 'muted' }, 'Nothing to compare with: this is the initial plan.'));
    else if (rows.length === 0) body.append(h('p', { class: 'muted' }, 'No subtask changed.'));
    else
      body.append(
        h(
          'table',
          { class: 'diff-rows', id: 'diff-rows' },
          h('thead', {}, h('tr', {}, ...['change', 'subtask', 'before', 'after'].map((name) => h('th', {}, name)))),
          h(
            'tbody',
            {},
            ...rows.map((row) =>
              h(
                'tr',
                { class: `diff-${row.kind}`, 'data-id': row.id },
                h('td', {}, h('span', { class: `swatch diff-${row.kind}` }), row.kind),
                h('td', {}, h('code', {}, row.id)),
                ...changeCells(row.before ?? '', row.after ?? ''),
              ),
            ),
          ),
        ),
      );
  }

  /** @param {string} title @param {any} data @param {Map<string, string>} classes @param {string} which */
  function side(title, data, classes, which) {
    const box = h('div', { class: 'graph-box small' });
    const zoom = createZoom(box);
    const card = h(
      'div',
      { class: `side ${which}`, 'data-version': data.version },
      h('h3', {}, title),
      zoom.element,
      box,
    );
    const dag = drawDag(data, (id) => (location.hash = `${back}?task=${encodeURIComponent(id)}`), {
      classes,
      markerId: `arrow-${which}`,
    });
    box.append(dag.element);
    // The box must be in the page before fitting to its width.
    queueMicrotask(() => zoom.attach(dag.element, data.layout));
    return card;
  }
  pick(index);
}

/** @param {any} diff */
function summarize(diff) {
  if (!diff) return 'initial';
  const parts = ['added', 'removed', 'changed', 'rewired']
    .filter((kind) => diff[kind]?.length > 0)
    .map((kind) => `${diff[kind].length} ${kind}`);
  return parts.length > 0 ? parts.join(', ') : 'no changes';
}

/** The before and after cells with the differing middle marked (as text: del and ins elements around text nodes). */
function changeCells(/** @type {string} */ before, /** @type {string} */ after) {
  if (!before || !after) return [h('td', { class: 'before' }, before), h('td', { class: 'after' }, after)];
  const change = textChange(before, after);
  return [
    h('td', { class: 'before' }, change.prefix, change.removed ? h('del', {}, change.removed) : '', change.suffix),
    h('td', { class: 'after' }, change.prefix, change.added ? h('ins', {}, change.added) : '', change.suffix),
  ];
}
