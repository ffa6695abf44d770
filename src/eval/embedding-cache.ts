/**
 * Embeddings kept on disk across runs, so a re-run of `weft eval` or `weft bench` pays for each node text once.
 * One JSONL file per model under a directory, a line `{"text", "vector"}` per text, only ever appended to: a
 * crash loses at most the line being written, and two processes sharing the file at worst write a text twice.
 * A line that cannot be read (corrupt, truncated, wrong dimension) is skipped with a warning; the file is never
 * rewritten, so nothing already there is lost to a bug here.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface EmbeddingCacheEntry {
  readonly text: string;
  readonly vector: readonly number[];
}

/** Where an embedding similarity looks vectors up before asking the model, and keeps the new ones. */
export interface EmbeddingCache {
  /** Where the vectors are kept, for messages. */
  readonly location: string;
  /** The cached vectors of those `texts` that have one. */
  lookup(texts: readonly string[]): Promise<Map<string, readonly number[]>>;
  /** Keeps new vectors; texts already cached are left as they are. */
  store(entries: readonly EmbeddingCacheEntry[]): Promise<void>;
}

export interface DiskEmbeddingCacheOptions {
  /** The folder holding one file per model; created on the first write. */
  readonly directory: string;
  /** What identifies the model, e.g. `ollama:nomic-embed-text`; names the file. */
  readonly model: string;
  /** Told about skipped lines and failed writes (default: a process warning). */
  readonly onWarning?: (message: string) => void;
}

/** Corrupt lines warned about one by one; beyond this they are counted in one more warning. */
const MAX_LINE_WARNINGS = 5;

/** The cache file of a model: its id made safe for a file name, plus a short hash so distinct ids never share one. */
export function embeddingCacheFile(directory: string, model: string): string {
  const readable = model
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 80);
  const hash = createHash('sha256').update(model).digest('hex').slice(0, 12);
  return join(directory, `${readable === '' ? 'model' : readable}-${hash}.jsonl`);
}

export function openEmbeddingCache(options: DiskEmbeddingCacheOptions): EmbeddingCache {
  const file = embeddingCacheFile(options.directory, options.model);
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, 'EmbeddingCacheWarning'));
  let loading: Promise<Map<string, readonly number[]>> | undefined;
  // A file not ending in a newline (a write cut short) must not glue the next line onto the broken one.
  let startWithNewline = false;
  let writing: Promise<void> = Promise.resolve();
  let writable = true;

  async function load(): Promise<Map<string, readonly number[]>> {
    const vectors = new Map<string, readonly number[]>();
    let content: string;
    try {
      content = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        warn(`${file}: could not read the embedding cache (${messageOf(error)}); starting without it`);
      return vectors;
    }
    startWithNewline = content !== '' && !content.endsWith('\n');
    let dimension: number | undefined;
    let skipped = 0;
    content.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      const entry = readLine(line, dimension);
      if (typeof entry === 'string') {
        skipped++;
        if (skipped <= MAX_LINE_WARNINGS)
          warn(`${file}:${index + 1}: skipped an unreadable embedding cache line (${entry})`);
        return;
      }
      if (entry.vector.length > 0) dimension ??= entry.vector.length;
      if (!vectors.has(entry.text)) vectors.set(entry.text, entry.vector);
    });
    if (skipped > MAX_LINE_WARNINGS)
      warn(`${file}: skipped ${skipped - MAX_LINE_WARNINGS} more unreadable embedding cache lines`);
    return vectors;
  }

  function loaded(): Promise<Map<string, readonly number[]>> {
    loading ??= load();
    return loading;
  }

  async function append(text: string): Promise<void> {
    if (!writable) return;
    try {
      await mkdir(options.directory, { recursive: true });
      await appendFile(file, startWithNewline ? `\n${text}` : text, 'utf8');
      startWithNewline = false;
    } catch (error) {
      // The cache only saves work: going on without it beats failing the evaluation.
      writable = false;
      warn(`${file}: could not write the embedding cache (${messageOf(error)}); going on without saving embeddings`);
    }
  }

  return {
    location: file,
    async lookup(texts) {
      const vectors = await loaded();
      const found = new Map<string, readonly number[]>();
      for (const text of texts) {
        const vector = vectors.get(text);
        if (vector) found.set(text, vector);
      }
      return found;
    },
    async store(entries) {
      const vectors = await loaded();
      let lines = '';
      for (const { text, vector } of entries) {
        if (vectors.has(text)) continue;
        vectors.set(text, vector);
        lines += `${JSON.stringify({ text, vector })}\n`;
      }
      if (lines === '') return;
      // One append at a time, in order, so lines from two batches never interleave.
      writing = writing.then(() => append(lines));
      await writing;
    },
  };
}

/** The entry on a line, or why it cannot be used. */
function readLine(line: string, dimension: number | undefined): EmbeddingCacheEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'not an object';
  const { text, vector } = value as { text?: unknown; vector?: unknown };
  if (typeof text !== 'string') return '"text" is not a string';
  // An empty vector is kept: it is what a model gives for a text with no tokens (e.g. "").
  if (!Array.isArray(vector)) return '"vector" is not an array';
  if (!vector.every((component) => typeof component === 'number' && Number.isFinite(component))) {
    return '"vector" holds something other than finite numbers';
  }
  if (dimension !== undefined && vector.length > 0 && vector.length !== dimension) {
    return `"vector" has ${vector.length} dimensions where earlier lines have ${dimension}`;
  }
  return { text, vector: vector as number[] };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
