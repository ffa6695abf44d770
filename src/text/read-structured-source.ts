/**
 * Reads a YAML or JSON document for the parsers that locate their problems (workflows, team files): the value,
 * and where each field of it stands in the text.
 */
import { yaml } from './yaml.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { findDeepNesting, nestingMessage } from './nesting-depth.js';
import { positionAtOffset, positionsInDocument, type PositionOf } from './source-locator.js';

/** A syntax problem with its place (the same shape as errors.ts's LocatedIssue, which a leaf cannot import). */
export interface SourceIssue {
  readonly file?: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export type StructuredSource = { value: unknown; positionOf: PositionOf } | { issues: SourceIssue[] };

/** JSON by extension, else YAML by extension, else JSON when the text starts with `{` or `[`. */
export function looksLikeJson(text: string, file: string | undefined): boolean {
  const extension = /\.([A-Za-z]+)$/.exec(file ?? '')?.[1]?.toLowerCase();
  if (extension === 'json') return true;
  if (extension === 'yaml' || extension === 'yml') return false;
  return /^\s*[{[]/.test(text);
}

export function readStructuredSource(input: string, file: string | undefined): StructuredSource {
  // A byte-order mark is not content; editors do not count it as a column either.
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const lineCounter = new (yaml().LineCounter)();
  const at = (offset: number, message: string): SourceIssue => ({
    ...(file === undefined ? {} : { file }),
    ...positionAtOffset(text, offset),
    message,
  });
  // After parseDocument, whose line index finds a position in log time: a file can hold 100,000 problems, and
  // positionAtOffset counts lines from the start for each one.
  const atIndexed = (offset: number, message: string): SourceIssue => {
    const { line, col } = lineCounter.linePos(offset);
    return { ...(file === undefined ? {} : { file }), line, column: col, message };
  };

  if (looksLikeJson(text, file)) {
    const syntaxError = findJsonSyntaxError(text);
    if (syntaxError) return { issues: [at(syntaxError.offset, `invalid JSON: ${syntaxError.message}`)] };
    // JSON is YAML, so the YAML parser supplies the positions of fields; JSON.parse supplies the value.
    const document = yaml().parseDocument(text, { lineCounter, prettyErrors: false });
    // JSON.parse silently keeps the last of repeated keys; a document with two `name`s is a mistake.
    const duplicates = document.errors.filter((error) => error.code === 'DUPLICATE_KEY');
    if (duplicates.length > 0) {
      return {
        issues: duplicates.map((error) => {
          const key = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(error.pos[0]))?.[0] ?? 'a key';
          return atIndexed(error.pos[0], `invalid JSON: duplicate key ${key} in the same object`);
        }),
      };
    }
    return { value: JSON.parse(text) as unknown, positionOf: positionsInDocument(document, lineCounter) };
  }

  // Before composing, which recurses per level (JSON's depth is checked with its syntax above).
  const deep = findDeepNesting(text);
  if (deep !== undefined) return { issues: [at(deep, `invalid YAML: ${nestingMessage()}`)] };
  const document = yaml().parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0)
    return { issues: document.errors.map((error) => atIndexed(error.pos[0], `invalid YAML: ${error.message}`)) };
  try {
    return { value: document.toJS() as unknown, positionOf: positionsInDocument(document, lineCounter) };
  } catch (error) {
    // e.g. an alias bomb exceeding the alias limit.
    return { issues: [at(0, `invalid YAML: ${error instanceof Error ? error.message : String(error)}`)] };
  }
}
