/**
 * Problems found in one line of a JSONL file, located: the file, the line, the column where the field starts (JSON
 * is YAML, and the YAML parser knows where every field starts) and the field's path. Shaped like errors.ts's
 * LocatedIssue, which this leaf may not import.
 */
import { type FieldPath, formatFieldPath, positionsInDocument } from './source-locator.js';
import { yaml } from './yaml.js';

export interface LineProblem {
  readonly path: FieldPath;
  readonly message: string;
}

export interface LocatedLineIssue {
  readonly file: string;
  readonly line: number;
  readonly column?: number;
  readonly field?: string;
  readonly message: string;
}

export function lineIssues(
  file: string,
  line: number,
  lineText: string,
  problems: readonly LineProblem[],
): LocatedLineIssue[] {
  if (problems.length === 0) return [];
  const lineCounter = new (yaml().LineCounter)();
  const positionOf = positionsInDocument(
    yaml().parseDocument(lineText, { lineCounter, prettyErrors: false }),
    lineCounter,
  );
  return problems.map(({ path, message }) => {
    const position = positionOf(path);
    const field = formatFieldPath(path);
    return {
      file,
      line,
      ...(position ? { column: position.column } : {}),
      ...(field === undefined ? {} : { field }),
      message,
    };
  });
}
