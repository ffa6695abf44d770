import type { Document, LineCounter } from 'yaml';
import { yaml } from './yaml.js';

/** A path into parsed input, as zod reports it: `['subtasks', 2, 'dependsOn', 0]`. */
export type FieldPath = readonly (string | number)[];

/** A problem found before locating it in the source text. */
export interface PathIssue {
  readonly path: FieldPath;
  readonly message: string;
}

/** 1-based, like editors and compilers count. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** Where the field at a path starts in the source, when there is a source. */
export type PositionOf = (path: FieldPath) => SourcePosition | undefined;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `['subtasks', 2, 'dependsOn', 0]` → `subtasks[2].dependsOn[0]`; the root has no field. */
export function formatFieldPath(path: FieldPath): string | undefined {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text ? `.${segment}` : segment;
    // Keys that are not identifiers are quoted so the path stays unambiguous.
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text || undefined;
}

/** Line and column of a character offset, for errors found without a YAML document (JSON syntax). */
export function positionAtOffset(text: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let index = 0; index < end; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Locates paths in a parsed YAML (or JSON) document. A map entry is located at its key, because the
 * issue is about the field; a path that goes further than the document (a missing field) is located
 * at the deepest part that exists.
 */
export function positionsInDocument(document: Document, lineCounter: LineCounter): PositionOf {
  const { isMap, isNode, isSeq } = yaml();
  return (path) => {
    let node: unknown = document.contents;
    let offset: number | undefined = isNode(node) ? node.range?.[0] : undefined;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => keyText(item.key) === String(segment));
        if (!pair) break;
        offset = (isNode(pair.key) ? pair.key.range?.[0] : undefined) ?? offset;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item: unknown = node.items[segment];
        if (!isNode(item)) break;
        offset = item.range?.[0] ?? offset;
        node = item;
      } else {
        break;
      }
    }
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
}

function keyText(key: unknown): string {
  return yaml().isScalar(key) ? String(key.value) : String(key);
}
