/**
 * Model text as HTML for the node panel. markdown-it with raw HTML off escapes every tag the text contains and
 * refuses `javascript:`/`data:` links (its validateLink), so what comes out is inert; the page's CSP is the second
 * wall. Links open nothing by themselves: the client adds rel="noopener noreferrer".
 */
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** Beyond this, the text is shown clipped: a 10 MB output would freeze the panel, not inform. */
export const MARKDOWN_LIMIT = 200_000;

/** Embedding, override and isolate controls: text that reorders what follows it (as web/dom.js shows them). */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

export function renderMarkdown(text: string): { html: string; clipped: boolean } {
  const clipped = text.length > MARKDOWN_LIMIT;
  const shown = (clipped ? text.slice(0, MARKDOWN_LIMIT) : text).replace(
    BIDI_CONTROLS,
    (control) => `[U+${control.charCodeAt(0).toString(16).toUpperCase()}]`,
  );
  return { html: markdown.render(shown), clipped };
}
