/**
 * Reading a PDL file (`*.pdl.yaml`, docs/pdl.md) into a Pdl, with every problem of its shape located
 * (file, line, column, path) and reported at once. What the names mean together — unknown APIs, cycles, duplicates,
 * bindings — is checkPdl's (check-pdl.ts); `loadPdlFile` runs both and refuses a file with errors.
 *
 * Variants found in the wild are accepted as they are: `PDL:` for `Procedure:`, `pre:` for `precondition:`, a
 * precondition, request or response given as a list, a comma string (`"a, b"`) or a single name, `None`/null for
 * none, a bare name for an entry (`- request_information`), and `API.x(...)`, `API_x(...)`, `ANSWER.y(...)`,
 * `ANSWER_y(...)` calls in the procedure.
 */
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { WeftError } from '../errors.js';
import { readInputFile } from '../tools/read-input-file.js';
import { parseToolsSection } from '../tools/parse-tools-section.js';
import { describeValue, withArticle } from '../text/describe-value.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { findWideMap } from '../text/wide-maps.js';
import { type FieldPath, formatFieldPath, type SourcePosition } from '../text/source-locator.js';
import { clip } from '../text/clip.js';
import { callNameOf } from './call-name.js';
import { checkPdl } from './check-pdl.js';
import {
  BUILT_IN_ANSWERS,
  type Pdl,
  type PdlAnswer,
  type PdlApi,
  type PdlProblem,
  type PdlReference,
  type PdlSlot,
} from './pdl.js';
import { ANSWER_KEYS, API_KEYS, MAX_PDL_NAME_LENGTH, PDL_KEYS, SLOT_KEYS, unknownKeys } from './pdl-keys.js';
import { type PdlEntrySource, type PdlSection, rememberPdlSource, SECTION_KEYS } from './pdl-source-map.js';
import { parseControllerSettings } from './parse-pdl-controllers.js';
import { MAX_PDL_LIST_ITEMS, nameList } from './pdl-name-list.js';
import { type ParsedPrecondition, parsePrecondition } from './parse-precondition.js';
import { blankCommentsAndStrings, scanProcedure } from './scan-procedure.js';

/** A procedure is a few KB; a bigger file is a mistake (or hostile), refused before it is read. */
export const MAX_PDL_FILE_BYTES = 2_000_000;
/** Keys in one map of the file: a PDL map holds a dozen; a tool's JSON Schema perhaps a hundred. */
export const MAX_MAP_KEYS = 1_000;
/** Entries in one of SLOTs, APIs, ANSWERs. */
export const MAX_PDL_ENTRIES = 500;
export { MAX_PDL_LIST_ITEMS };
/** Characters of the procedure text: a page or two in practice, and all of it goes into every bot prompt. */
export const MAX_PROCEDURE_CHARS = 100_000;

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the built-in answers are for, when the file does not say. */
const BUILT_IN_DESCS: Readonly<Record<(typeof BUILT_IN_ANSWERS)[number], string>> = {
  request_information: 'Ask the user for information the procedure needs next.',
  answer_out_of_workflow_questions:
    'Answer a question outside the procedure briefly and honestly, then lead back to the procedure.',
};

export interface ParsePdlOptions {
  /** The file's name as the user wrote it, for locations; `Pdl.file` is its absolute path. */
  readonly file?: string;
  /** Controller modules and tool modules resolve against it (default: the file's folder, else the working one). */
  readonly baseDir?: string;
  /** Where `${env:NAME}` of a `tools:` section is looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface ParsedPdl {
  /**
   * The procedure, whenever the document is a map (so that checkPdl can find more problems); usable only when
   * `problems` holds no error.
   */
  readonly pdl?: Pdl;
  readonly problems: PdlProblem[];
}

export function parsePdl(text: string, options: ParsePdlOptions = {}): ParsedPdl {
  const { file } = options;
  const inFile = file === undefined ? {} : { file };
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_PDL_FILE_BYTES) {
    return {
      problems: [{ severity: 'error', ...inFile, message: `is ${bytes} bytes; at most ${MAX_PDL_FILE_BYTES}` }],
    };
  }
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
    const { line, column } = new LineIndex(source).position(Math.max(0, source.indexOf('\u0000')));
    return {
      problems: [{ severity: 'error', ...inFile, line, column, message: 'is not a text file (it holds NUL bytes)' }],
    };
  }
  // Before composing, which takes time quadratic in the keys of a map (wide-maps.ts).
  // A map of more keys needs as many `:`, `,` or `?`: most files skip the walk.
  const wide = countKeyMarks(text) > MAX_MAP_KEYS ? findWideMap(text, MAX_MAP_KEYS) : undefined;
  if (wide !== undefined) {
    const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
    const { line, column } = new LineIndex(source).position(Math.max(0, wide.offset - (source === text ? 0 : 1)));
    return {
      problems: [
        {
          severity: 'error',
          ...inFile,
          line,
          column,
          message: `a map with ${wide.keys} keys; at most ${MAX_MAP_KEYS}`,
        },
      ],
    };
  }
  const read = readStructuredSource(text, file);
  if ('issues' in read) return { problems: read.issues.map((issue) => ({ severity: 'error', ...issue })) };
  const { positionOf } = read;
  const problems: PdlProblem[] = [];
  const report = (severity: PdlProblem['severity'], path: FieldPath, message: string) => {
    const field = formatFieldPath(path);
    problems.push({
      severity,
      ...inFile,
      ...(positionOf(path) ?? {}),
      ...(field === undefined ? {} : { path: field }),
      message,
    });
  };
  const error = (path: FieldPath, message: string) => report('error', path, message);
  const warn = (path: FieldPath, message: string) => report('warning', path, message);

  const root = read.value;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    error([], `a PDL file is a map with Name, Desc, SLOTs, APIs, ANSWERs and Procedure; got ${describeValue(root)}`);
    return { problems };
  }
  const record = root as Record<string, unknown>;
  for (const problem of unknownKeys(record, PDL_KEYS, [])) error(problem.path, problem.message);

  const baseDir = options.baseDir ?? (file === undefined ? process.cwd() : dirname(resolve(file)));
  const name = textField(record, 'Name', [], { required: true, report });
  const desc = textField(record, 'Desc', [], { report });
  if (record.Desc === undefined) warn([], 'no "Desc": the bot is told what the procedure is for by it');
  const detailedDesc = textField(record, 'Detailed_desc', [], { report });

  const sources: Record<PdlSection, (PdlEntrySource | undefined)[]> = { slots: [], apis: [], answers: [] };
  const slots: PdlSlot[] = [];
  for (const entry of entries(record, 'slots', SLOT_KEYS, report)) {
    const type = textField(entry.record, 'type', entry.path, { report });
    slots.push({
      name: entry.name,
      desc: textField(entry.record, 'desc', entry.path, { report }) ?? '',
      ...(type === undefined ? {} : { type }),
    });
    sources.slots.push(entry.source);
  }
  const apis: PdlApi[] = [];
  for (const entry of entries(record, 'apis', API_KEYS, report)) {
    const apiDesc = textField(entry.record, 'desc', entry.path, { report });
    const request = nameList(entry.record.request, [...entry.path, 'request'], report);
    const response = nameList(entry.record.response, [...entry.path, 'response'], report);
    const pre = precondition(entry, report);
    apis.push({
      name: entry.name,
      ...(entry.label === undefined ? {} : { label: entry.label }),
      ...(apiDesc === undefined ? {} : { desc: apiDesc }),
      request,
      response,
      ...preconditionFields(pre),
    });
    sources.apis.push(withItems(entry.source, pre));
  }
  const answers: PdlAnswer[] = [];
  for (const entry of entries(record, 'answers', ANSWER_KEYS, report)) {
    const builtIn = (BUILT_IN_ANSWERS as readonly string[]).includes(entry.name);
    const answerDesc = textField(entry.record, 'desc', entry.path, { report });
    // A free-text name says what the answer is for: it is its description when the file gives none.
    if (answerDesc === undefined && !builtIn && entry.record.desc === undefined && entry.label === undefined) {
      warn(entry.path, `answer "${entry.name}" has no "desc": the bot has nothing to go on for it`);
    }
    const pre = precondition(entry, report);
    answers.push({
      name: entry.name,
      ...(entry.label === undefined ? {} : { label: entry.label }),
      desc: answerDesc ?? entry.label ?? (builtIn ? BUILT_IN_DESCS[entry.name as keyof typeof BUILT_IN_DESCS] : ''),
      ...preconditionFields(pre),
    });
    sources.answers.push(withItems(entry.source, pre));
  }
  for (const builtIn of BUILT_IN_ANSWERS) {
    if (answers.some((answer) => answer.name === builtIn)) continue;
    answers.push({ name: builtIn, desc: BUILT_IN_DESCS[builtIn], precondition: [], builtIn: true });
    sources.answers.push(undefined);
  }

  const procedureKey = record.PDL !== undefined && record.Procedure === undefined ? 'PDL' : 'Procedure';
  if (record.PDL !== undefined && record.Procedure !== undefined) {
    error(['PDL'], 'both "Procedure" and "PDL" give the procedure; keep one');
  }
  const procedure = textField(record, procedureKey, [], { required: true, report, multiline: true }) ?? '';
  let references: PdlReference[] = [];
  if (procedure.length > MAX_PROCEDURE_CHARS) {
    error([procedureKey], `is ${procedure.length} characters long; at most ${MAX_PROCEDURE_CHARS}`);
  } else if (procedure !== '') {
    references = locateReferences(text, procedure, positionOf([procedureKey]), {
      apiNames: new Set(apis.map((api) => api.name)),
      answerNames: new Set(answers.map((answer) => answer.name)),
    });
  }

  const controllers = parseControllerSettings(record.controllers, ['controllers'], baseDir, error);
  const hasTools = record.tools !== undefined || record.allowHosts !== undefined;
  if (hasTools) {
    const section = parseToolsSection({
      tools: record.tools,
      allowHosts: record.allowHosts,
      positionOf,
      ...inFile,
      baseDir,
      ...(options.env ? { env: options.env } : {}),
    });
    for (const issue of section.issues) {
      const { field, message, line, column } = issue;
      problems.push({
        severity: 'error',
        ...inFile,
        ...(line === undefined ? {} : { line }),
        ...(column === undefined ? {} : { column }),
        ...(field === undefined ? {} : { path: field }),
        message,
      });
    }
  }

  const pdl: Pdl = {
    ...(file === undefined ? {} : { file: resolve(file) }),
    name: name ?? '',
    desc: desc ?? '',
    ...(detailedDesc === undefined ? {} : { detailedDesc }),
    slots,
    apis,
    answers,
    procedure,
    references,
    controllers,
    hasTools,
    sha256: createHash('sha256').update(text).digest('hex'),
  };
  rememberPdlSource(pdl, { ...inFile, positionOf, procedureKey, entries: sources });
  return { pdl, problems };
}

/**
 * Reads and checks a PDL file (parsePdl, then checkPdl): the Pdl, or BAD_INPUT whose `issues` list every error,
 * located. Warnings do not stop it. Folders, pipes and files over MAX_PDL_FILE_BYTES are refused unread.
 */
export async function loadPdlFile(path: string, options: Omit<ParsePdlOptions, 'file'> = {}): Promise<Pdl> {
  const text = await readPdlText(path);
  const parsed = parsePdl(text, { ...options, file: path });
  const problems = parsed.pdl ? [...parsed.problems, ...checkPdl(parsed.pdl)] : parsed.problems;
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (parsed.pdl && errors.length === 0) return parsed.pdl;
  const issues = errors
    .map(({ file, line, column, path: field, message }) => ({
      ...(file === undefined ? {} : { file }),
      ...(line === undefined ? {} : { line }),
      ...(column === undefined ? {} : { column }),
      ...(field === undefined ? {} : { field }),
      message,
    }))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const [only] = issues;
  if (issues.length === 1 && only) {
    const { message, ...location } = only;
    throw new WeftError('BAD_INPUT', message, { location });
  }
  throw new WeftError('BAD_INPUT', `invalid PDL file: ${issues.length} problems`, { location: { file: path }, issues });
}

/** The text of a PDL file, refusing what is not one: a folder, a pipe, a file over MAX_PDL_FILE_BYTES. */
export async function readPdlText(path: string): Promise<string> {
  return readInputFile(path, 'PDL file', MAX_PDL_FILE_BYTES);
}

type Report = (severity: PdlProblem['severity'], path: FieldPath, message: string) => void;

interface TextFieldOptions {
  readonly required?: boolean;
  readonly report: Report;
  /** The procedure: long text, where a number or a list is surely a mistake. */
  readonly multiline?: boolean;
}

/** A text field: a string, or a number or boolean written without quotes (`Name: 114`). Null is absent. */
function textField(
  record: Readonly<Record<string, unknown>>,
  key: string,
  at: FieldPath,
  options: TextFieldOptions,
): string | undefined {
  const value = record[key];
  const path = [...at, key];
  if (value === undefined || value === null) {
    if (options.required) options.report('error', path, `missing required field "${key}"`);
    return undefined;
  }
  if (typeof value === 'string') {
    if (options.required && value.trim() === '') options.report('error', path, 'must not be empty');
    return value;
  }
  if (!options.multiline && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  options.report('error', path, `expected text, got ${describeValue(value)}`);
  return undefined;
}

interface Entry {
  /** The name the procedure calls it by. */
  readonly name: string;
  /** The name as written, when it was free text. */
  readonly label?: string;
  readonly record: Readonly<Record<string, unknown>>;
  readonly path: FieldPath;
  readonly source: PdlEntrySource;
}

/** The named entries of SLOTs, APIs or ANSWERs; an entry without a usable name is reported and left out. */
function entries(
  record: Readonly<Record<string, unknown>>,
  section: PdlSection,
  allowed: readonly string[],
  report: Report,
): Entry[] {
  const key = SECTION_KEYS[section];
  const list = record[key];
  if (list === undefined || list === null) return [];
  const what = section === 'slots' ? 'slot' : section === 'apis' ? 'API' : 'answer';
  if (!Array.isArray(list)) {
    report('error', [key], `expected a list of ${what}s (each with "name"), got ${describeValue(list)}`);
    return [];
  }
  if (list.length > MAX_PDL_ENTRIES) {
    report('error', [key], `lists ${list.length} ${what}s; at most ${MAX_PDL_ENTRIES}`);
    return [];
  }
  const found: Entry[] = [];
  list.forEach((raw: unknown, index) => {
    const path = [key, index];
    const entry = typeof raw === 'string' ? { name: raw } : raw;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      report(
        'error',
        path,
        `expected ${what === 'API' ? 'an API' : withArticle(what)} (a map with "name"), got ${describeValue(raw)}`,
      );
      return;
    }
    const fields = entry as Record<string, unknown>;
    for (const problem of unknownKeys(fields, allowed, path)) report('error', problem.path, problem.message);
    const name = fields.name;
    if (typeof name !== 'string') {
      report(
        'error',
        typeof raw === 'string' ? path : [...path, 'name'],
        name === undefined || name === null
          ? `missing required field "name"`
          : `expected a name, got ${describeValue(name)}`,
      );
      return;
    }
    const namePath = typeof raw === 'string' ? path : [...path, 'name'];
    // APIs and answers may be named in free text, as the FlowAgent authors' files do ("Please provide necessary
    // information"); the procedure calls them with each run of spaces as one `_`.
    const called = section === 'slots' ? name : callNameOf(name);
    if (called.length > MAX_PDL_NAME_LENGTH) {
      report('error', namePath, `the name is ${called.length} characters long; at most ${MAX_PDL_NAME_LENGTH}`);
      return;
    }
    if (!NAME_PATTERN.test(called)) {
      report(
        'error',
        namePath,
        section === 'slots'
          ? `${JSON.stringify(clip(name, 100))} is not a name: letters, digits and _, not starting with a digit (e.g. ${clip(suggestName(name), 100)})`
          : `${JSON.stringify(clip(name, 100))} is not a name: letters, digits, _ and spaces (each run of spaces is called as one _), not starting with a digit (e.g. ${clip(suggestName(name), 100)})`,
      );
      return;
    }
    const keys = fields.pre !== undefined && fields.precondition === undefined ? { precondition: 'pre' } : undefined;
    found.push({
      name: called,
      ...(called === name ? {} : { label: name.trim() }),
      record: fields,
      path,
      source: { index, ...(keys ? { keys } : {}) },
    });
  });
  return found;
}

function suggestName(name: string): string {
  const cleaned = name
    .trim()
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function precondition(entry: Entry, report: Report): ParsedPrecondition {
  const { record, path } = entry;
  if (record.pre !== undefined && record.precondition !== undefined) {
    report('error', [...path, 'pre'], 'both "precondition" and "pre" are given; keep one');
  }
  const key = record.precondition !== undefined ? 'precondition' : 'pre';
  // An API named in free text may be named so here too (parsePrecondition calls it by callNameOf).
  return parsePrecondition(record[key], [...path, key], report);
}

/** The entry's source, with where its precondition's APIs and conditions stand in the file's list. */
function withItems(source: PdlEntrySource, parsed: ParsedPrecondition): PdlEntrySource {
  return { ...source, items: parsed.items };
}

/** The precondition's fields of an API or answer: `conditions` only when it has some. */
function preconditionFields(parsed: ParsedPrecondition): Pick<PdlApi, 'precondition' | 'conditions'> {
  return {
    precondition: parsed.precondition,
    ...(parsed.conditions.length > 0 ? { conditions: parsed.conditions } : {}),
  };
}

/**
 * The procedure's references, each at its place in the file: the scan's offset in the procedure text is found again
 * in the file's raw text (the same head, in the same order), which holds for block scalars (`|`, `>`), plain and
 * quoted ones alike, whatever the indentation and escapes.
 */
function locateReferences(
  input: string,
  procedure: string,
  keyAt: SourcePosition | undefined,
  names: { apiNames: ReadonlySet<string>; answerNames: ReadonlySet<string> },
): PdlReference[] {
  const scan = scanProcedure(procedure, names);
  if (scan.references.length === 0) return [];
  // Positions come from the text without its byte-order mark, as readStructuredSource's do.
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const index = new LineIndex(text);
  let raw = '';
  let start = 0;
  if (keyAt) {
    const keyOffset = index.offset(keyAt);
    const colon = text.indexOf(':', keyOffset);
    start = colon === -1 ? keyOffset : colon + 1;
    while (text[start] === ' ' || text[start] === '\t') start++;
    const indicator = text[start];
    if (indicator === '|' || indicator === '>') {
      const lineEnd = text.indexOf('\n', start);
      start = lineEnd === -1 ? text.length : lineEnd + 1;
      // In a block scalar, comments and strings are the procedure's own: blanked as the scan blanked them.
      raw = blankCommentsAndStrings(text.slice(start));
    } else {
      raw = indicator === '"' || indicator === "'" ? text.slice(start) : blankCommentsAndStrings(text.slice(start));
    }
  }
  let cursor = 0;
  return scan.references.map((reference) => {
    const found = keyAt ? raw.indexOf(reference.head, cursor) : -1;
    let at: SourcePosition | undefined = keyAt;
    if (found !== -1) {
      cursor = found + reference.head.length;
      at = index.position(start + found);
    }
    return {
      kind: reference.kind,
      name: reference.name,
      line: at?.line ?? 1,
      column: at?.column ?? 1,
      outputs: reference.outputs,
      inputs: reference.inputs,
    };
  });
}

function countKeyMarks(text: string): number {
  let marks = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 58 || code === 44 || code === 63) marks++;
  }
  return marks;
}

/** Line and column of offsets in one text, in log time (a procedure can name thousands of calls). */
class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.starts.push(at + 1);
  }
  position(offset: number): SourcePosition {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.starts[low] ?? 0) + 1 };
  }
  offset(position: SourcePosition): number {
    return (this.starts[position.line - 1] ?? 0) + position.column - 1;
  }
}
