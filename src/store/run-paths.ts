/**
 * The run directory contract of docs/contracts.md: `<home>/weft.db` and `<home>/runs/<runId>/` holding
 * `artifacts/`, `outputs/<subtask>.md` (or `outputs/@all.md` for a run of very many outputs), `plan-v<N>.json` and
 * `report.md`.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { WeftError } from '../errors.js';

export interface RunPaths {
  /** `<home>/runs/<runId>` */
  readonly dir: string;
  /** `<home>/runs/<runId>/artifacts` */
  readonly artifacts: string;
  /** `<home>/runs/<runId>/report.md` */
  readonly report: string;
  /** `<home>/runs/<runId>/outputs`: each subtask's accepted output. */
  readonly outputs: string;
  /** `<home>/runs/<runId>/plan-v<version>.json` */
  planFile(version: number): string;
}

/** Run ids become folder names: letters, digits, `.`, `_`, `-`, not starting with `.` or `-`. */
const SAFE_RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Names Windows reserves whatever the extension (`con.md` is the console there). */
const RESERVED_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * The file name of a subtask's output in `outputs/`, relative to the run folder's `outputs/`. Plan files allow any
 * non-empty id, so an id that is not a plain file name (`../x`, `a/b`, `con`, a very long one) gets a readable
 * stem plus a hash of the whole id: it can never leave the folder, and two ids never share a file.
 */
export function outputFileName(taskId: string): string {
  if (SAFE_RUN_ID.test(taskId) && taskId.length <= 100 && !RESERVED_NAME.test(taskId) && !taskId.endsWith('.'))
    return `${taskId}.md`;
  const stem =
    taskId
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(/^[_-]+|[_-]+$/g, '')
      .slice(0, 60) || 'subtask';
  const hash = createHash('sha256').update(taskId).digest('hex').slice(0, 10);
  return `${stem}-${hash}.md`;
}

/**
 * Up to this many accepted outputs, each is a file of its own in `outputs/`; a run with more keeps them all in one
 * file, ALL_OUTPUTS_FILE. Ten thousand small files cost seconds on a busy disk, more than such a run's own work.
 */
export const OUTPUT_FILES_LIMIT = 1000;

/** The one file of a run with more than OUTPUT_FILES_LIMIT accepted outputs; outputFileName never makes an `@`. */
export const ALL_OUTPUTS_FILE = '@all.md';

/** The anchor of a subtask's section in ALL_OUTPUTS_FILE: its file name without `.md`, so safe in a link. */
export function outputAnchor(taskId: string): string {
  return outputFileName(taskId).slice(0, -'.md'.length);
}

/**
 * Where a subtask's accepted output is, relative to the run folder, in a run with `accepted` accepted outputs:
 * `outputs/<subtask>.md`, or its section `outputs/@all.md#<anchor>` in a run of more than OUTPUT_FILES_LIMIT.
 */
export function outputFilePath(taskId: string, accepted: number): string {
  return accepted > OUTPUT_FILES_LIMIT
    ? `outputs/${ALL_OUTPUTS_FILE}#${outputAnchor(taskId)}`
    : `outputs/${outputFileName(taskId)}`;
}

export function databasePath(home: string): string {
  return join(home, 'weft.db');
}

/** Throws WeftError('BAD_INPUT') for a run id that could not safely be a folder name (e.g. `../x`). */
export function runPaths(home: string, runId: string): RunPaths {
  if (!SAFE_RUN_ID.test(runId)) {
    throw new WeftError(
      'BAD_INPUT',
      `Invalid run id ${JSON.stringify(runId)}: expected letters, digits, '.', '_' or '-'`,
    );
  }
  const dir = join(home, 'runs', runId);
  return {
    dir,
    artifacts: join(dir, 'artifacts'),
    report: join(dir, 'report.md'),
    outputs: join(dir, 'outputs'),
    planFile(version: number): string {
      if (!Number.isInteger(version) || version < 1)
        throw new TypeError(`Expected a plan version >= 1, got ${version}`);
      return join(dir, `plan-v${version}.json`);
    },
  };
}
