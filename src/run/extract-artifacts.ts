/**
 * Finding the files an agent emits in its output. Pure: text in, artifacts out; writing them (and refusing
 * paths that escape the artifact folder) is `writeArtifacts` in artifacts.ts.
 *
 * A file is a fenced code block (``` or ~~~, three or more, CommonMark rules: up to three spaces of indent, the
 * closing fence uses the same character and is at least as long) whose path is named in one of these ways, tried
 * in this order:
 *
 * 1. In the info string:
 *    - an attribute `path=`, `file=`, `filename=`, `filepath=`, `name=` or `title=`, the value bare or in "…"/'…':
 *      ```html path=index.html     ```js title="src/game.js"     ```python file='tools/run.py'
 *    - `language:path`: ```js:src/app.js
 *    - a bare path (a word containing `/` or a `.ext`): ```src/app.js
 * 2. On the last non-blank line before the fence (blank lines may separate them), the whole line being one of:
 *    - `File: src/app.js`, `Filename: …`, `Path: …` (any case; also bold `**File:** src/app.js`, a heading
 *      `### File: src/app.js`, or inside a comment: `// file: x`, `# file: x`, `<!-- file: x -->`, `/* file: x *\/`)
 *    - a path alone, optionally in bold, backticks or a heading and followed by a colon: `**src/app.js**`,
 *      `` `src/app.js` ``, `### src/app.js`, `src/app.js:`. Alone means it must look like a path (`/` or `.ext`)
 *      and contain no spaces, so prose such as "Here is the code:" never names a file.
 * 3. On the first line inside the block, as a comment with a keyword: `// file: src/app.js`, `# filename: x.py`,
 *    `<!-- path: index.html -->`, `/* file: a.css *\/`, `-- file: q.sql`. The line stays in the content.
 *
 * Not extracted: blocks with no path (plain examples), and a block whose closing fence is missing (a truncated
 * reply: writing half a file would be worse than writing none). When several blocks name the same path the last
 * one wins. Content is the block's lines joined with `\n`, ending with a newline; Windows line ends become `\n`.
 * A leading `./` is dropped from paths; everything else is kept as written (safety checks belong to the writer).
 */

export interface ExtractedArtifact {
  /** The path as the agent named it (relative to the artifact folder, not yet checked). */
  readonly path: string;
  readonly content: string;
  /** The fence's language word, when there is one (`html`, `js`, …). */
  readonly language?: string;
}

const OPENING_FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const ATTRIBUTE = /^(path|file|filename|filepath|name|title)=(?:"([^"]*)"|'([^']*)'|(\S+))/i;
const KEYWORD_LABEL = /^(?:\*\*|__)?(?:file(?:name|path)?|path)\s*:\s*(?:\*\*|__)?\s*(.*)$/i;
const COMMENT_FIRST_LINE =
  /^\s*(?:\/\/|#|--|;|\/\*|<!--)\s*(?:file(?:name|path)?|path)\s*:\s*(\S+?)\s*(?:\*\/|-->)?\s*$/i;

function looksLikePath(word: string): boolean {
  return /^[^\s`"'*<>|]+$/.test(word) && (word.includes('/') || /[^./]\.[A-Za-z0-9_-]{1,16}$/.test(word));
}

function cleanPath(raw: string): string {
  let path = raw.trim();
  path = path.replace(/^["'`]+|["'`]+$/g, '');
  while (path.startsWith('./')) path = path.slice(2);
  return path;
}

/** Splits an info string into words, keeping quoted attribute values whole. */
function infoWords(info: string): string[] {
  return info.match(/[^\s"'=]+=(?:"[^"]*"|'[^']*'|\S*)|\S+/g) ?? [];
}

function fromInfo(info: string): { language?: string; path?: string } {
  const words = infoWords(info.trim());
  let language: string | undefined;
  let path: string | undefined;
  words.forEach((word, index) => {
    const attribute = ATTRIBUTE.exec(word);
    if (attribute) {
      path ??= cleanPath(attribute[2] ?? attribute[3] ?? attribute[4] ?? '');
      return;
    }
    if (index !== 0) return;
    const colon = /^([A-Za-z0-9_+#-]+):(.+)$/.exec(word);
    if (colon && looksLikePath(cleanPath(colon[2] as string))) {
      language = colon[1];
      path = cleanPath(colon[2] as string);
    } else if (looksLikePath(word)) {
      path = cleanPath(word);
    } else if (/^[A-Za-z0-9_+#.-]+$/.test(word)) {
      language = word;
    }
  });
  const result: { language?: string; path?: string } = {};
  if (language !== undefined) result.language = language;
  if (path !== undefined && path !== '') result.path = path;
  return result;
}

function stripWrapping(text: string): string {
  let value = text.trim();
  for (;;) {
    const before = value;
    value = value.replace(/:$/, '').trim();
    for (const mark of ['**', '__', '`', '*', '_']) {
      if (value.length > 2 * mark.length && value.startsWith(mark) && value.endsWith(mark)) {
        value = value.slice(mark.length, -mark.length).trim();
      }
    }
    if (value === before) return value;
  }
}

/** The path named by a label line, or undefined when the line is not a label. */
function fromLabel(line: string): string | undefined {
  let text = line.trim();
  // Comment and heading wrappers.
  text = text
    .replace(/^<!--(.*?)-->$/, '$1')
    .replace(/^\/\*(.*?)\*\/$/, '$1')
    .trim();
  text = text.replace(/^(?:\/\/|--|;|#{1,6})\s*/, '').trim();
  text = stripWrapping(text);
  const keyword = KEYWORD_LABEL.exec(text);
  if (keyword) {
    const path = cleanPath(stripWrapping(keyword[1] as string));
    return /^\S+$/.test(path) ? path : undefined;
  }
  const path = cleanPath(stripWrapping(text));
  return looksLikePath(path) ? path : undefined;
}

function fromFirstLine(line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  const match = COMMENT_FIRST_LINE.exec(line);
  return match ? cleanPath(match[1] as string) : undefined;
}

export function extractArtifacts(text: string): ExtractedArtifact[] {
  const lines = text.split(/\r\n|\r|\n/);
  const found = new Map<string, ExtractedArtifact>();
  /** Index of the line after the previous block, so a label is never taken from inside another block. */
  let floor = 0;
  let index = 0;
  while (index < lines.length) {
    const opening = OPENING_FENCE.exec(lines[index] as string);
    const fence = opening?.[2];
    const info = opening?.[3] ?? '';
    if (!opening || fence === undefined || (fence.startsWith('`') && info.includes('`'))) {
      index += 1;
      continue;
    }
    const indent = (opening[1] as string).length;
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] as string)) end += 1;
    if (end >= lines.length) break; // Unclosed: the rest of the text is inside a truncated block.

    const body = lines.slice(index + 1, end).map((line) => {
      let strip = 0;
      while (strip < indent && line[strip] === ' ') strip += 1;
      return line.slice(strip);
    });
    const fromFence = fromInfo(info);
    let path = fromFence.path;
    if (path === undefined) {
      let label = index - 1;
      while (label >= floor && (lines[label] as string).trim() === '') label -= 1;
      if (label >= floor) path = fromLabel(lines[label] as string);
    }
    path ??= fromFirstLine(body[0]);

    if (path !== undefined) {
      const content = body.length === 0 ? '' : `${body.join('\n')}\n`;
      const artifact: ExtractedArtifact =
        fromFence.language === undefined ? { path, content } : { path, content, language: fromFence.language };
      found.delete(path);
      found.set(path, artifact);
    }
    index = end + 1;
    floor = index;
  }
  return [...found.values()];
}
