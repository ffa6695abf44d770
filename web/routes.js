// @ts-check
/** Which page each hash shows. Pages register here; the header's links are `navigation`. */
import { renderBatchPage } from './views/batch-page.js';
import { renderBatchesList } from './views/batches-list.js';
import { renderPlanHistory } from './views/plan-history.js';
import { renderReportFilePage } from './views/report-file-page.js';
import { renderReportPage } from './views/report-page.js';
import { renderReportsList } from './views/reports-list.js';
import { renderRunPage } from './views/run-page.js';
import { renderRunsList } from './views/runs-list.js';
import { renderSessionPage } from './views/session-page.js';
import { renderSessionsList } from './views/sessions-list.js';
import { renderTeamsPage } from './views/teams-page.js';
import { renderTracePage } from './views/trace-page.js';
import { renderTracesList } from './views/traces-list.js';

/**
 * @typedef {(main: HTMLElement, params: string[], signal: AbortSignal) => Promise<void>} Page
 * @type {{ pattern: RegExp, render: Page }[]}
 */
export const routes = [
  { pattern: /^#\/runs\/?(?:\?.*)?$/, render: renderRunsList },
  { pattern: /^#\/runs\/([^/?]+)(?:\?.*)?$/, render: renderRunPage },
  { pattern: /^#\/runs\/([^/?]+)\/plans(?:\?.*)?$/, render: renderPlanHistory },
  { pattern: /^#\/runs\/([^/?]+)\/teams$/, render: renderTeamsPage },
  { pattern: /^#\/sessions\/?$/, render: renderSessionsList },
  { pattern: /^#\/sessions\/([^/?]+)$/, render: renderSessionPage },
  { pattern: /^#\/batches\/?$/, render: renderBatchesList },
  { pattern: /^#\/batches\/([^/?]+)$/, render: renderBatchPage },
  { pattern: /^#\/traces\/?$/, render: renderTracesList },
  { pattern: /^#\/traces\/([^/?]+)$/, render: renderTracePage },
  { pattern: /^#\/reports\/?$/, render: renderReportsList },
  { pattern: /^#\/reports\/([^/?]+)$/, render: renderReportPage },
  { pattern: /^#\/reports\/([^/?]+)\/file\/([^/?]+)$/, render: renderReportFilePage },
];

/** @type {[string, string][]} */
export const navigation = [
  ['Runs', '#/runs'],
  ['Sessions', '#/sessions'],
  ['Batches', '#/batches'],
  ['Traces', '#/traces'],
  ['Reports', '#/reports'],
];
