/** Runs `main()` in-process with captured stdout/stderr. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A writable stream that keeps what is written, for a command's stdout or stderr. */
export class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** `main(args)` in this process, with `env` set for the call and `stdin` (when given) as the command's input. */
export async function cli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  stdin?: string,
): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const saved: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) {
    saved[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    const code = await main(args, {
      stdout,
      stderr,
      ...(stdin === undefined ? {} : { stdin: Readable.from([stdin]) }),
    });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'weft-cli-'));
}
