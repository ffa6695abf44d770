/**
 * Model text as HTML for the node panel. markdown-it with raw HTML off escapes every tag the text contains and
 * refuses `javascript:`/`data:` links (its validateLink), so what comes out is inert; the page's CSP is the second
 * wall. Links open nothing by themselves: the client adds rel="noopener noreferrer".
 */
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** Beyond this, the text is shown clipped: a 10 MB output would freeze the panel, not inform. */
export const MARKDOWN_LIMIT = 200_000;

export function renderMarkdown(text: string): { html: string; clipped: boolean } {
  const clipped = text.length > MARKDOWN_LIMIT;
  return { html: markdown.render(clipped ? text.slice(0, MARKDOWN_LIMIT) : text), clipped };
}
