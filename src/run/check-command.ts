/**
 * The user's check of a finished run (`weft run --check CMD`, docs/algorithms.md#fault-injection): a shell command
 * run in the run's artifacts folder, judged by its exit status alone (0 = the task succeeded). It is independent of
 * the run's own verifier, which is what the Flow paper's robustness experiment measures task success with.
 *
 * Bounded in time and output: the command and everything it started (its process group) is killed at the deadline
 * or on cancel, stdin is closed, and only the last `maxOutputChars` characters of stdout and stderr are kept.
 */
import { spawn } from 'node:child_process';

export interface CheckCommandOptions {
  readonly command: string;
  /** The folder it runs in (the run's artifacts). */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Extra environment (WEFT_RUN_DIR, WEFT_ARTIFACTS), over the process's own. */
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly maxOutputChars?: number;
}

export interface CheckCommandResult {
  readonly passed: boolean;
  /** Null when the command did not exit by itself (killed, or it could not start). */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** The tail of stdout and stderr as they came, or why the command could not run. */
  readonly output: string;
  /** Characters of output dropped from the front to keep `output` bounded. */
  readonly droppedChars: number;
}

export const CHECK_OUTPUT_CHARS = 4000;

export function runCheckCommand(options: CheckCommandOptions): Promise<CheckCommandResult> {
  const limit = options.maxOutputChars ?? CHECK_OUTPUT_CHARS;
  return new Promise((resolve) => {
    let tail = '';
    let dropped = 0;
    let timedOut = false;
    let settled = false;
    const keep = (chunk: Buffer) => {
      tail += chunk.toString('utf8');
      if (tail.length > limit) {
        dropped += tail.length - limit;
        tail = tail.slice(tail.length - limit);
      }
    };
    const child = spawn(options.command, {
      cwd: options.cwd,
      shell: true,
      // Its own process group, so the deadline stops whatever the command started too.
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    const kill = () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      try {
        if (process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (result: Omit<CheckCommandResult, 'output' | 'droppedChars'>, extra = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, output: `${tail}${extra}`, droppedChars: dropped });
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) =>
      finish(
        { passed: false, exitCode: null, timedOut },
        `${tail ? '\n' : ''}the check could not run: ${error.message}`,
      ),
    );
    child.on('close', (code) => {
      const note = timedOut ? `${tail ? '\n' : ''}stopped at the check's deadline of ${options.timeoutMs} ms` : '';
      finish({ passed: code === 0 && !timedOut, exitCode: timedOut ? null : code, timedOut }, note);
    });
    if (options.signal?.aborted) kill();
  });
}
