/** Running the `weft` CLI in a child process, as a user does (through tsx, from the repository root). */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** One entry of `tasks` in the `weft run --json` document. */
export interface TaskJson {
  id: string;
  status: string;
  attempts: number;
  startMs: number | null;
  endMs: number | null;
  dependsOn: string[];
}

/** `weft <args>` (with `env` added to the environment); never rejects: the exit code is in the result. */
export function weft(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** stdout as one JSON document; fails with the CLI's output when it is not one. */
export function jsonDocument(result: CliResult): Record<string, unknown> {
  try {
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(
      `stdout is not one JSON document (exit ${result.code}).\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  }
}
