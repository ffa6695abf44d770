// @ts-check
/** `#/runs/<id>/teams`: every team subtask of a run, each team run drawn by team-view.js (the last one first). */
import { getJson } from '../api.js';
import { h } from '../dom.js';
import { drawTeam } from './team-view.js';

/** @type {import('../routes.js').Page} */
export async function renderTeamsPage(main, [runId], signal) {
  if (!runId) throw new Error('No run id in the address');
  const path = `/api/runs/${encodeURIComponent(runId)}`;
  const { teams } = await getJson(`${path}/teams`, signal);
  const back = `#/runs/${encodeURIComponent(runId)}`;
  const root = h(
    'div',
    { class: 'teams-page', id: 'teams-page', 'data-run': runId },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Teams of run ', h('a', { href: back }, h('code', {}, runId)))),
  );
  if (teams.length === 0) root.append(h('p', { class: 'muted' }, 'No subtask of this run was run by a team.'));
  for (const task of teams) {
    const runs = [...task.runs].reverse();
    const card = h(
      'section',
      { class: 'card team-task', 'data-task': task.taskId },
      h('h2', {}, task.taskId),
      runs.length > 1 ? h('p', { class: 'muted' }, `${runs.length} team runs for this subtask; the last first.`) : '',
    );
    runs.forEach((run, index) => {
      if (runs.length > 1) card.append(h('h3', {}, `attempt ${run.attempt}${index === 0 ? ' (last)' : ''}`));
      card.append(drawTeam(run));
    });
    root.append(card);
  }
  main.append(root);
}
