/**
 * Reading the README's quick starts: each `### ` section under `## Quick starts` holds one `sh` block (the
 * commands) and one `text` block (an excerpt of what the user sees, `…` standing for text that varies).
 */

export interface QuickStart {
  readonly title: string;
  /** Shell variable assignments (`P=…; T=…`), kept for every command of the block. */
  readonly assignments: readonly string[];
  /** The commands, one per entry, continuation lines joined. */
  readonly commands: readonly string[];
  /** The lines of the `text` block, without blank ones. */
  readonly sample: readonly string[];
}

/** The fenced blocks of a Markdown text, in order. */
export function fencedBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? '',
    body: match[2] ?? '',
  }));
}

/** The text of the `## heading` section, up to the next `## ` heading. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`the README has no "## ${heading}" section`);
  const rest = markdown.slice(start + 1);
  const end = rest.indexOf('\n## ', 1);
  return end < 0 ? rest : rest.slice(0, end);
}

/** A `sh` block's lines, with `\` continuations joined and comments after `#` at a line start dropped. */
export function shellLines(body: string): string[] {
  return body
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const ASSIGNMENTS = /^[A-Z_][A-Z0-9_]*=\S+(?:;\s*[A-Z_][A-Z0-9_]*=\S+)*;?$/;

export function parseQuickStarts(readme: string): QuickStart[] {
  const parts = section(readme, 'Quick starts').split(/^### /m).slice(1);
  return parts.map((part) => {
    const title = part.slice(0, part.indexOf('\n')).trim();
    const blocks = fencedBlocks(part);
    const sh = blocks.filter((block) => block.lang === 'sh');
    const text = blocks.filter((block) => block.lang === 'text');
    if (sh.length !== 1 || text.length !== 1) {
      throw new Error(`quick start "${title}": one sh block and one text block expected`);
    }
    const lines = shellLines(sh[0]?.body ?? '');
    return {
      title,
      assignments: lines.filter((line) => ASSIGNMENTS.test(line)),
      commands: lines.filter((line) => !ASSIGNMENTS.test(line)),
      sample: (text[0]?.body ?? '').split('\n').filter((line) => line.trim() !== ''),
    };
  });
}

/** A sample line as a pattern: `…` matches any text on the line, a run of spaces any run of whitespace. */
export function samplePattern(line: string): RegExp {
  const parts = line
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  return new RegExp(parts.join('[^\\n]*?'));
}

/** The sample lines that `output` does not show. */
export function missingSampleLines(sample: readonly string[], output: string): string[] {
  return sample.filter((line) => !samplePattern(line).test(output));
}

/** `<runId>` and `<traceId>` in a command, filled from what earlier commands printed (the latest id wins). */
export const PLACEHOLDERS: Readonly<Record<string, RegExp>> = {
  runId: /\brun (\d{8}-\d{6}-[0-9a-f]+)\b/g,
  traceId: /\btrace (t-\d{8}-\d{6}-[0-9a-f]+)\b/g,
};

export function fillPlaceholders(command: string, printed: string): string {
  return command.replace(/<(\w+)>/g, (whole, name: string) => {
    const pattern = PLACEHOLDERS[name];
    if (pattern === undefined) throw new Error(`no rule fills ${whole} in: ${command}`);
    const found = [...printed.matchAll(pattern)].at(-1)?.[1];
    if (found === undefined) throw new Error(`nothing printed before "${command}" gives ${whole}`);
    return found;
  });
}
