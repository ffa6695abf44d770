// @ts-check
/**
 * The dashboard's router: the URL's hash names the page (`#/runs`, `#/runs/<id>`, …). Each page is a function
 * that fills the main element and stops its live work (event streams, timers) when the signal aborts, which
 * happens when the user goes to another page.
 */
import { ApiError } from './api.js';
import { clear, h } from './dom.js';
import { routes, navigation } from './routes.js';

const view = /** @type {HTMLElement} */ (document.getElementById('view'));
const boot = JSON.parse(document.getElementById('boot')?.textContent ?? '{}');
const storeLabel = document.getElementById('store');
if (storeLabel) storeLabel.textContent = boot.store ?? '';
const nav = document.getElementById('nav');
for (const [label, hash] of navigation) nav?.append(h('a', { href: hash }, label));

/** @type {AbortController | undefined} */
let current;

async function show() {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const hash = location.hash || '#/runs';
  for (const link of nav?.querySelectorAll('a') ?? [])
    link.classList.toggle('active', hash.startsWith(link.getAttribute('href') ?? '\u0000'));
  clear(view);
  for (const route of routes) {
    const match = route.pattern.exec(hash);
    if (!match) continue;
    try {
      await route.render(view, match.slice(1).map(decodeParam), controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      clear(view);
      const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
      view.append(h('p', { class: 'error' }, message));
    }
    return;
  }
  view.append(h('p', { class: 'error' }, `No page ${hash}`));
}

/** A hand-typed `%` that starts no escape (`#/runs/100%`) is the id as typed, not "URI malformed". @param {string} text */
function decodeParam(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

window.addEventListener('hashchange', show);
show();
