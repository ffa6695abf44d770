/**
 * The run directory contract of ARCHITECTURE.md: `<home>/weft.db` and `<home>/runs/<runId>/` holding
 * `artifacts/`, `plan-v<N>.json` and `report.md`.
 */
import { join } from 'node:path';
import { WeftError } from '../errors.js';

export interface RunPaths {
  /** `<home>/runs/<runId>` */
  readonly dir: string;
  /** `<home>/runs/<runId>/artifacts` */
  readonly artifacts: string;
  /** `<home>/runs/<runId>/report.md` */
  readonly report: string;
  /** `<home>/runs/<runId>/plan-v<version>.json` */
  planFile(version: number): string;
}

/** Run ids become folder names: letters, digits, `.`, `_`, `-`, not starting with `.` or `-`. */
const SAFE_RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

export function databasePath(home: string): string {
  return join(home, 'weft.db');
}

/** Throws WeftError('BAD_INPUT') for a run id that could not safely be a folder name (e.g. `../x`). */
export function runPaths(home: string, runId: string): RunPaths {
  if (!SAFE_RUN_ID.test(runId)) {
    throw new WeftError('BAD_INPUT', `Invalid run id ${JSON.stringify(runId)}: expected letters, digits, '.', '_' or '-'`);
  }
  const dir = join(home, 'runs', runId);
  return {
    dir,
    artifacts: join(dir, 'artifacts'),
    report: join(dir, 'report.md'),
    planFile(version: number): string {
      if (!Number.isInteger(version) || version < 1) throw new TypeError(`Expected a plan version >= 1, got ${version}`);
      return join(dir, `plan-v${version}.json`);
    },
  };
}
