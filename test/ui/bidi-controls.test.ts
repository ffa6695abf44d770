/**
 * Bidirectional controls in recorded text (a model's `\u202E` in a tool name, a task, an output) are shown, not
 * obeyed: obeyed, they reverse the text after them, the dashboard's own words included (`ok · 5 ms` read as
 * `sm 5 · ko`). Marks that reorder nothing beyond themselves stay.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/ui/render-markdown.js';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { showBidiControls } from '../../web/dom.js';

const CONTROLS = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];

describe('bidirectional controls', () => {
  it('the page shows each embedding, override and isolate control by its code point', () => {
    expect(showBidiControls('tool\u202Eevil · ok')).toBe('tool[U+202E]evil · ok');
    for (const control of CONTROLS) expect(showBidiControls(`a${control}b`)).not.toContain(control);
    expect(showBidiControls('\u2066\u2069')).toBe('[U+2066][U+2069]');
    // Right-to-left text and the plain marks are left alone.
    expect(showBidiControls('שלום \u200F مرحبا \u200E x\u200B')).toBe('שלום \u200F مرحبا \u200E x\u200B');
  });

  it('the node panel’s Markdown shows them too', () => {
    const { html } = renderMarkdown(`# Title \u202Eevil\n\ntext \u2067x\u2069 and \`code\u202D\``);
    for (const control of CONTROLS) expect(html).not.toContain(control);
    expect(html).toContain('<h1>Title [U+202E]evil</h1>');
    expect(html).toContain('<code>code[U+202D]</code>');
  });
});
