/**
 * Node ids and label text for the graph drawings Weft prints (Mermaid flowcharts and Graphviz DOT): plan graphs
 * (`weft show --mermaid/--dot`), PDL API graphs (`weft pdl show --mermaid`) and executable workflows (`weft workflow
 * show`). One escaping for all of them: an id or a label holding quotes, brackets or line breaks must neither break
 * the drawing nor add statements to it. A leaf: imports nothing.
 */

/**
 * A node id both Mermaid and Graphviz accept, derived from the id alone (so it is stable across exports) and
 * one-to-one: letters and digits stay, every other character becomes `_<hex>_`. The `n_` prefix keeps ids such as
 * `end` or `graph` from reading as keywords.
 */
export function graphNodeId(id: string): string {
  let encoded = 'n_';
  for (const character of id) {
    encoded += /^[A-Za-z0-9]$/.test(character) ? character : `_${(character.codePointAt(0) ?? 0).toString(16)}_`;
  }
  return encoded;
}

/**
 * Text safe inside a quoted Mermaid label: characters Mermaid treats as syntax or HTML become entity
 * codes (`#34;`), line breaks become `<br/>`, other control characters become spaces.
 */
export function escapeMermaidLabel(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) =>
      line
        .replace(/[\u0000-\u001f\u007f]/g, ' ')
        .replace(/["#&<>[\]{}()|`\\]/g, (character) => `#${character.charCodeAt(0)};`),
    )
    .join('<br/>');
}

/** Text safe inside a quoted DOT label: backslashes and quotes escaped, line breaks as `\n`. */
export function escapeDotLabel(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[\\"]/g, (character) => `\\${character}`))
    .join('\\n');
}
