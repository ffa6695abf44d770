// @ts-check
/** Which page each hash shows. Pages register here; the header's links are `navigation`. */
import { renderRunPage } from './views/run-page.js';
import { renderRunsList } from './views/runs-list.js';

/**
 * @typedef {(main: HTMLElement, params: string[], signal: AbortSignal) => Promise<void>} Page
 * @type {{ pattern: RegExp, render: Page }[]}
 */
export const routes = [
  { pattern: /^#\/runs\/?(?:\?.*)?$/, render: renderRunsList },
  { pattern: /^#\/runs\/([^/?]+)$/, render: renderRunPage },
];

/** @type {[string, string][]} */
export const navigation = [['Runs', '#/runs']];
