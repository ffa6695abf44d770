// @ts-check
/** Which page each hash shows. Pages register here; the header's links are `navigation`. */
import { renderPlanHistory } from './views/plan-history.js';
import { renderRunPage } from './views/run-page.js';
import { renderRunsList } from './views/runs-list.js';
import { renderTeamsPage } from './views/teams-page.js';

/**
 * @typedef {(main: HTMLElement, params: string[], signal: AbortSignal) => Promise<void>} Page
 * @type {{ pattern: RegExp, render: Page }[]}
 */
export const routes = [
  { pattern: /^#\/runs\/?(?:\?.*)?$/, render: renderRunsList },
  { pattern: /^#\/runs\/([^/?]+)(?:\?.*)?$/, render: renderRunPage },
  { pattern: /^#\/runs\/([^/?]+)\/plans(?:\?.*)?$/, render: renderPlanHistory },
  { pattern: /^#\/runs\/([^/?]+)\/teams$/, render: renderTeamsPage },
];

/** @type {[string, string][]} */
export const navigation = [['Runs', '#/runs']];
