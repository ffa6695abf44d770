// @ts-check
/** Pieces the engine pages share (sessions, traces, batches, reports): tables, stat cards, a pager, empty states. */
import { h } from '../dom.js';
import { formatNumber } from '../format.js';

/**
 * Numbers in cells and stat cards go through formatNumber: a measured value shows a few significant digits.
 * @param {string[]} columns
 * @param {(Node | string | number | null | undefined)[][]} rows
 * @param {{ id?: string, className?: string, empty?: string }} [options]
 */
export function table(columns, rows, options = {}) {
  const body = h('tbody');
  for (const row of rows)
    body.append(
      h(
        'tr',
        {},
        ...row.map((cell) =>
          typeof cell === 'number'
            ? h('td', { class: 'num' }, formatNumber(cell))
            : h('td', {}, cell === null || cell === undefined ? '' : cell),
        ),
      ),
    );
  if (rows.length === 0 && options.empty)
    body.append(h('tr', {}, h('td', { colspan: columns.length, class: 'muted empty' }, options.empty)));
  return h(
    'table',
    { id: options.id, class: options.className },
    h('thead', {}, h('tr', {}, ...columns.map((name) => h('th', {}, name)))),
    body,
  );
}

/** @param {[string, string | number | null | undefined][]} pairs */
export function stats(pairs) {
  return h(
    'div',
    { class: 'stats' },
    ...pairs
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .map(([label, value]) =>
        h(
          'div',
          { class: 'stat' },
          h('span', { class: 'label' }, label),
          h('span', { class: 'value' }, typeof value === 'number' ? formatNumber(value) : String(value)),
        ),
      ),
  );
}

/**
 * Previous / next over `total` items, `limit` a page; calls `go(offset)`.
 * @param {number} offset @param {number} limit @param {number} total @param {(offset: number) => void} go
 */
export function pager(offset, limit, total, go) {
  if (total <= limit) return h('span');
  const last = Math.min(total, offset + limit);
  return h(
    'div',
    { class: 'pager' },
    h(
      'button',
      { type: 'button', disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)) },
      '‹ previous',
    ),
    h(
      'span',
      { class: 'muted' },
      `${(offset + 1).toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()}`,
    ),
    h('button', { type: 'button', disabled: last >= total, onclick: () => go(offset + limit) }, 'next ›'),
  );
}

/** JSON text (already cut by the server) as a block of text. @param {string} text @param {string} [className] */
export function codeBlock(text, className = 'code') {
  return h('pre', { class: className }, text);
}

/** @param {string} message */
export function emptyState(message) {
  return h('p', { class: 'muted empty' }, message);
}

/**
 * Appends children, leaving out null, undefined and false (the DOM's own append would write them as text).
 * @param {Element} parent @param {...(Node | string | null | undefined | false)} children
 */
export function put(parent, ...children) {
  for (const child of children) if (child !== null && child !== undefined && child !== false) parent.append(child);
}
