/**
 * The benchmark's `predictions.jsonl`, written one line per record as each finishes, so a crash loses only the
 * records in flight. Reopening it keeps every complete, successful line and drops the rest (a line cut by a
 * crash, a line that is not a prediction, a record that failed): those records are generated again.
 */
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';

export interface PredictionLine {
  readonly id: string;
  /** The workflow text (what `weft eval` scores); "" when the record failed. */
  readonly output: string;
  readonly planner: 'single' | 'weft';
  readonly model: string;
  /** Model calls spent on this record (the K-candidate planner makes K, plus any re-prompts). */
  readonly calls: number;
  readonly tokens: { readonly input: number; readonly output: number };
  readonly durationMs: number;
  readonly error?: string;
}

export interface DroppedLines {
  /** A last line without its end (a crash while writing). */
  readonly truncated: number;
  /** Records that failed before; they are tried again. */
  readonly failed: number;
  /** Lines that are not JSON predictions, and earlier duplicates of an id. */
  readonly invalid: number;
}

export interface PredictionsWriter {
  readonly path: string;
  /** Complete, successful predictions already in the file, by id. */
  readonly existing: ReadonlyMap<string, PredictionLine>;
  readonly dropped: DroppedLines;
  /** Appends one line; appends are serialized, each is one write of a whole line. */
  append(line: PredictionLine): Promise<void>;
}

export async function openPredictionsWriter(path: string): Promise<PredictionsWriter> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { existing, dropped } = readPredictionLines(text);
  const clean = serialize([...existing.values()]);
  // Rewrite (atomically) only when something was dropped, so an intact file is never touched.
  if (clean !== text) {
    const temporary = `${path}.tmp-${process.pid}`;
    await writeFile(temporary, clean);
    await rename(temporary, path);
  }
  let tail: Promise<void> = Promise.resolve();
  return {
    path,
    existing,
    dropped,
    append(line) {
      const write = tail.then(() => appendFile(path, serialize([line])));
      tail = write.catch(() => {});
      return write;
    },
  };
}

/** The lines worth keeping, by id (the last good line of an id wins), and what was dropped. */
export function readPredictionLines(text: string): { existing: Map<string, PredictionLine>; dropped: DroppedLines } {
  const existing = new Map<string, PredictionLine>();
  let truncated = 0;
  let failed = 0;
  let invalid = 0;
  const lines = text.split('\n');
  const complete = text.endsWith('\n') || text === '';
  lines.forEach((raw, index) => {
    const isLast = index === lines.length - 1;
    if (raw.trim() === '') return;
    const line = parseLine(raw);
    if (isLast && !complete && line === undefined) {
      truncated += 1;
      return;
    }
    if (line === undefined) invalid += 1;
    else if (line.error !== undefined) failed += 1;
    else {
      if (existing.has(line.id)) {
        invalid += 1;
        existing.delete(line.id);
      }
      existing.set(line.id, line);
    }
  });
  return { existing, dropped: { truncated, failed, invalid } };
}

function parseLine(raw: string): PredictionLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || typeof record.output !== 'string') return undefined;
  const tokens = (record.tokens ?? {}) as Record<string, unknown>;
  return {
    id: record.id,
    output: record.output,
    planner: record.planner === 'weft' ? 'weft' : 'single',
    model: typeof record.model === 'string' ? record.model : '',
    calls: typeof record.calls === 'number' ? record.calls : 0,
    tokens: {
      input: typeof tokens.input === 'number' ? tokens.input : 0,
      output: typeof tokens.output === 'number' ? tokens.output : 0,
    },
    durationMs: typeof record.durationMs === 'number' ? record.durationMs : 0,
    ...(typeof record.error === 'string' ? { error: record.error } : {}),
  };
}

function serialize(lines: readonly PredictionLine[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}
