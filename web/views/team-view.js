// @ts-check
/**
 * One team run of a subtask (a `team` event, as /api/runs/:id/teams and the node panel serve it): who took part
 * and why, the layers with each agent's answer, the reformation (kept, dropped, the ranker's reason), the stop,
 * and this query's importance scores as a bar chart. Every value goes in as text.
 */
import { h, s } from '../dom.js';
import { formatNumber } from '../format.js';

const BAR_ROW = 20;
const BAR_LABEL = 130;
const BAR_WIDTH = 220;

/**
 * @param {any} team a TeamRunView (src/ui/team-runs.ts)
 * @returns {HTMLElement}
 */
export function drawTeam(team) {
  const reformation = team.reformation;
  const stop =
    team.stopReason === 'consensus'
      ? `consensus at step ${team.stoppedAt} (more than 2/3 agreed)`
      : `maximum steps reached (step ${team.stoppedAt})`;
  const section = h(
    'div',
    { class: 'team', 'data-task': team.taskId, 'data-attempt': team.attempt },
    h(
      'dl',
      { class: 'team-facts' },
      h('dt', {}, 'team'),
      h('dd', { class: 'team-name' }, `${team.team} (role ${team.role})`),
      h('dt', {}, 'file'),
      h('dd', {}, h('code', {}, team.file)),
      h('dt', {}, 'answers'),
      h('dd', {}, `compared as ${team.kind}; task type ${team.taskType}`),
      h('dt', {}, 'agents'),
      h('dd', {}, team.members.join(', ')),
      h('dt', {}, 'selection'),
      h('dd', { class: 'selection' }, team.selection.reason),
      h('dt', {}, 'stop'),
      h('dd', { class: 'stop-reason' }, stop),
      h('dt', {}, 'calls'),
      h(
        'dd',
        {},
        `${team.calls}${team.ratingFallbacks > 0 || team.rankerFallbacks > 0 ? ` (fallbacks: ${team.ratingFallbacks} unreadable rating(s), ${team.rankerFallbacks} unusable ranker answer(s))` : ''}`,
      ),
      h('dt', {}, 'answer'),
      h('dd', { class: 'team-answer' }, team.answer),
    ),
  );
  if (reformation)
    section.append(
      h(
        'div',
        { class: 'reformation' },
        h(
          'h4',
          {},
          `Reformation after step ${reformation.afterStep}${reformation.fallback ? ' (ranker fallback)' : ''}`,
        ),
        h(
          'p',
          {},
          'kept ',
          ...agentChips(reformation.kept, 'kept'),
          ' · dropped ',
          ...(reformation.dropped.length > 0 ? agentChips(reformation.dropped, 'dropped') : ['none']),
        ),
        h('p', { class: 'ranker muted' }, `ranker: ${reformation.reason}`),
      ),
    );
  else section.append(h('p', { class: 'muted' }, 'No reformation (the team stopped before it, or has no ranker).'));
  section.append(h('h4', {}, 'Importance'), importanceChart(team.agents));
  section.append(
    h(
      'p',
      { class: 'muted' },
      team.scores.saved
        ? 'These scores were added to the stored team scores.'
        : `Not stored: ${team.scores.reason ?? 'unknown reason'}`,
    ),
  );
  section.append(h('h4', {}, 'Layers'), layersTable(team));
  return section;
}

/** @param {string[]} agents @param {string} standing */
function agentChips(agents, standing) {
  return agents.flatMap((agent, index) => [index > 0 ? ' ' : '', h('span', { class: `chip ${standing}` }, agent)]);
}

/**
 * Horizontal bars, one per agent, scaled to the largest score; the bar's class is the agent's standing.
 * @param {{ agent: string, standing: string, importance?: number, storedMean?: number, storedQueries?: number }[]} agents
 */
export function importanceChart(agents) {
  const max = Math.max(0, ...agents.map((agent) => agent.importance ?? 0));
  const width = BAR_LABEL + BAR_WIDTH + 90;
  const height = agents.length * BAR_ROW + 6;
  // A viewBox so the chart shrinks to fit the node panel's narrow column.
  const svg = s('svg', {
    class: 'importance',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': 'importance scores',
  });
  agents.forEach((agent, row) => {
    const y = row * BAR_ROW + 3;
    const value = agent.importance;
    const width = value === undefined || max <= 0 ? 0 : Math.max(1, (value / max) * BAR_WIDTH);
    const standing = agent.standing.replace(/\s+/g, '-');
    svg.append(
      s(
        'text',
        { x: 2, y: y + 13, class: 'label' },
        agent.agent.length > 18 ? `${agent.agent.slice(0, 17)}…` : agent.agent,
      ),
      s(
        'rect',
        { x: BAR_LABEL, y, width, height: BAR_ROW - 6, class: `bar ${standing}`, 'data-agent': agent.agent },
        s(
          'title',
          {},
          `${agent.agent}: ${value === undefined ? 'did not take part' : formatNumber(value, 4)} (${agent.standing})${agent.storedMean !== undefined ? `; stored mean before ${formatNumber(agent.storedMean, 4)} over ${agent.storedQueries} queries` : ''}`,
        ),
      ),
      s(
        'text',
        { x: BAR_LABEL + width + 4, y: y + 13, class: 'value' },
        value === undefined
          ? agent.standing
          : `${formatNumber(value)}${agent.standing === 'kept' ? '' : ` ${agent.standing}`}`,
      ),
    );
  });
  return svg;
}

/**
 * The layers as a grid: a row per agent, a column per step, each cell the agent's answer at that step; an agent
 * the reformation dropped has no answers after it.
 * @param {any} team
 */
function layersTable(team) {
  /** @type {string[]} */
  const agents = [];
  for (const layer of team.layers) for (const node of layer) if (!agents.includes(node.agent)) agents.push(node.agent);
  const dropped = new Set(team.reformation?.dropped ?? []);
  const head = h(
    'tr',
    {},
    h('th', {}, 'agent'),
    ...team.layers.map((/** @type {any} */ _layer, /** @type {number} */ index) => h('th', {}, `step ${index + 1}`)),
  );
  const body = h('tbody');
  for (const agent of agents) {
    const row = h('tr', { class: dropped.has(agent) ? 'dropped' : '' }, h('th', {}, agent));
    team.layers.forEach((/** @type {any[]} */ layer) => {
      const node = layer.find((candidate) => candidate.agent === agent);
      row.append(
        node
          ? h(
              'td',
              { class: 'team-answer' },
              node.answer,
              node.ratingsParsed ? '' : h('div', { class: 'muted' }, '(ratings unreadable)'),
            )
          : h('td', { class: 'muted' }, dropped.has(agent) ? 'dropped' : '—'),
      );
    });
    body.append(row);
  }
  return h('div', { class: 'layers-wrap' }, h('table', { class: 'layers' }, h('thead', {}, head), body));
}
