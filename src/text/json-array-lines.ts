/**
 * The line on which each element of a top-level JSON array starts, in one pass over the text (strings and nesting
 * followed, nothing parsed): what a large file's records say of where they stand, where a parse that keeps every
 * field's position would cost time and memory out of proportion. The text must be valid JSON.
 */
export function jsonArrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expecting = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 10) line++;
    if (inString) {
      if (code === 92) at++;
      else if (code === 34) inString = false;
      continue;
    }
    if (code === 32 || code === 9 || code === 10 || code === 13) continue;
    if (depth === 1 && expecting && code !== 93) {
      lines.push(line);
      expecting = false;
    }
    if (code === 34) inString = true;
    else if (code === 91 || code === 123) {
      depth++;
      if (depth === 1) expecting = true;
    } else if (code === 93 || code === 125) depth--;
    else if (code === 44 && depth === 1) expecting = true;
  }
  return lines;
}
