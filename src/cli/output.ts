/**
 * Where a command's output goes. With `--json` stdout carries exactly one JSON document and everything else goes
 * to stderr; without it, human text goes to stdout.
 */
export interface Output {
  readonly json: boolean;
  /** Human-readable result text (suppressed under --json). */
  text(line: string): void;
  /** Human-readable text without a line end, e.g. a reply as it streams in (suppressed under --json). */
  write(text: string): void;
  /** Progress and diagnostics: always stderr. */
  log(line: string): void;
  /** The one JSON document. */
  document(value: unknown): void;
}

export interface Streams {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** What commands that read their input line by line (`weft chat`) read; default process.stdin. */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export function createOutput(json: boolean, streams: Streams): Output {
  return {
    json,
    text: (line) => {
      if (!json) streams.stdout.write(`${line}\n`);
    },
    write: (text) => {
      if (!json) streams.stdout.write(text);
    },
    log: (line) => {
      streams.stderr.write(`${line}\n`);
    },
    document: (value) => {
      streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}
