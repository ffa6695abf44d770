/**
 * Where the parts of a parsed Pdl stand in the file it came from, for checkPdl's located problems. Kept beside the
 * Pdl (a WeakMap keyed by the object parsePdl returned) rather than in it: the Pdl is plain data that sessions and
 * controllers read, and a Pdl built by hand is checked just the same, with paths but no lines.
 *
 * Paths in a Pdl's terms (`['apis', 2, 'precondition', 0]`) become paths in the file's terms (`APIs[3].pre[0]`):
 * the file's own spelling of keys (`pre`, `PDL`) and its entry indices (an entry that failed to parse is not in the
 * Pdl, so indices may differ).
 */
import type { FieldPath, PositionOf, SourcePosition } from '../text/source-locator.js';
import { formatFieldPath } from '../text/source-locator.js';
import type { Pdl, PdlProblem } from './pdl.js';

export type PdlSection = 'slots' | 'apis' | 'answers';

/** The top-level key of each section, as the format spells it. */
export const SECTION_KEYS: Readonly<Record<PdlSection, string>> = { slots: 'SLOTs', apis: 'APIs', answers: 'ANSWERs' };

export interface PdlEntrySource {
  /** The entry's index in the file's list. */
  readonly index: number;
  /** Keys as the file spells them, by their canonical name (`precondition` → `pre`). */
  readonly keys?: Readonly<Record<string, string>>;
  /**
   * Where the items of the precondition stand in the file's list, by the Pdl's list (`precondition`, `conditions`):
   * the two differ when conditions are mixed in or a name is listed twice; undefined for an item of a comma string.
   */
  readonly items?: Readonly<Record<string, readonly (number | undefined)[]>>;
}

export interface PdlSourceMap {
  readonly file?: string;
  readonly positionOf: PositionOf;
  /** `Procedure` or `PDL`. */
  readonly procedureKey: string;
  /** Per section, per Pdl entry (built-in answers the file did not list have none). */
  readonly entries: Readonly<Record<PdlSection, readonly (PdlEntrySource | undefined)[]>>;
}

const sourceMaps = new WeakMap<Pdl, PdlSourceMap>();

export function rememberPdlSource(pdl: Pdl, map: PdlSourceMap): void {
  sourceMaps.set(pdl, map);
}

export function pdlSourceOf(pdl: Pdl): PdlSourceMap | undefined {
  return sourceMaps.get(pdl);
}

/** A Pdl path in the file's terms: `['apis', 2, 'precondition', 0]` → `['APIs', 3, 'pre', 0]`. */
export function sourcePathOf(map: PdlSourceMap | undefined, path: FieldPath): FieldPath {
  const [section, index, field, ...rest] = path;
  if (section === 'procedure') return [map?.procedureKey ?? 'Procedure'];
  if (section !== 'slots' && section !== 'apis' && section !== 'answers') return path;
  const key = SECTION_KEYS[section];
  if (typeof index !== 'number') return [key];
  const entry = map ? map.entries[section][index] : { index };
  if (!entry) return [key];
  const out: (string | number)[] = [key, entry.index];
  if (field === undefined) return out;
  // Conditions are written in the precondition's list.
  const name = field === 'conditions' ? 'precondition' : String(field);
  out.push(entry.keys?.[name] ?? (field === 'conditions' && map ? name : field));
  const [item, ...deeper] = rest;
  const items = map ? entry.items?.[String(field)] : undefined;
  // An item of a comma string has no place of its own: the path keeps the Pdl's index, located at the string.
  const at = typeof item === 'number' && items ? items[item] : undefined;
  out.push(...(at === undefined ? rest : [at, ...deeper]));
  return out;
}

/**
 * A problem about a part of the Pdl, located in its file when it has one; `at` overrides the position (a place in
 * the procedure text).
 */
export function pdlProblemAt(
  pdl: Pdl,
  severity: PdlProblem['severity'],
  path: FieldPath,
  message: string,
  at?: SourcePosition,
): PdlProblem {
  const map = pdlSourceOf(pdl);
  const sourcePath = sourcePathOf(map, path);
  const position = at ?? map?.positionOf(sourcePath);
  const field = formatFieldPath(sourcePath);
  const file = map?.file ?? pdl.file;
  return {
    severity,
    ...(file === undefined ? {} : { file }),
    ...(position ?? {}),
    ...(field === undefined ? {} : { path: field }),
    message,
  };
}
