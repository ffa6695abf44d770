/**
 * A JSON value inside a tagged block of a prompt, `<name>JSON</name>`: how the prompts of conversational
 * procedures, distillation and simulated APIs hand structured facts to a model (and to the `sim:` model, which
 * reads them back).
 */

/**
 * `<name>JSON</name>`, with every `<` inside the JSON written `\u003c` (the same string once parsed), so a value —
 * a user's message, a bot's reply — can neither close the block early nor open a look-alike block after it.
 */
export function jsonBlock(name: string, value: unknown): string {
  return `<${name}>\n${JSON.stringify(value, null, 1).replaceAll('<', '\\u003c')}\n</${name}>`;
}

/** The JSON of the last `<name>` block in a text, or undefined when there is none or it does not parse. */
export function readJsonBlock(text: string, name: string): unknown {
  const open = `<${name}>`;
  const start = text.lastIndexOf(open);
  if (start < 0) return undefined;
  const end = text.indexOf(`</${name}>`, start + open.length);
  if (end < 0) return undefined;
  try {
    return JSON.parse(text.slice(start + open.length, end));
  } catch {
    return undefined;
  }
}
