// @ts-check
/**
 * A file an eval report links (a distill eval's workflow, traces or per-case results, kept by `weft distill eval
 * --out`), shown as text: JSON indented, JSON Lines one indented value after another. The server serves only the
 * files the report lists, from inside its folder.
 */
import { getJson } from '../api.js';
import { h } from '../dom.js';
import { put } from './page-parts.js';

/** @type {import('../routes.js').Page} */
export async function renderReportFilePage(main, [reportId, file], signal) {
  const path = file ?? '';
  const data = await getJson(
    `/api/reports/${encodeURIComponent(reportId ?? '')}/file?path=${encodeURIComponent(path)}`,
    signal,
  );
  put(
    main,
    h(
      'div',
      { class: 'toolbar' },
      h('a', { href: `#/reports/${encodeURIComponent(reportId ?? '')}` }, '‹ report'),
      h('h1', {}, path),
    ),
    h('p', { class: 'muted' }, `${data.size} bytes${data.truncated ? ', shown cut' : ''} · ${data.report}`),
    h('pre', { class: 'report-file', id: 'report-file' }, readable(path, data.text)),
  );
}

/** JSON and JSON Lines indented when they parse (a cut file shows as it is). @param {string} path @param {string} text */
function readable(path, text) {
  try {
    if (path.endsWith('.json')) return JSON.stringify(JSON.parse(text), null, 2);
    if (path.endsWith('.jsonl'))
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.stringify(JSON.parse(line), null, 2))
        .join('\n\n');
  } catch {
    // Not whole JSON (cut at the size limit): the text as it is.
  }
  return text;
}
