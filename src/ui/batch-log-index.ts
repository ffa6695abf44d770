/**
 * An index of a batch's `log.jsonl` for the dashboard: where each case's final result record is (byte offset and
 * length), its status, and the counts — built by streaming the file in chunks, never holding it whole, and extended
 * from where it stopped when the log grows (a running batch). A 200,000-case log is read once; a page of results is
 * then a few positional reads. A torn last line (no line break yet) is left for the next look; a line over
 * MAX_LOG_LINE_BYTES is skipped unread and counted.
 */
import type { FileHandle } from 'node:fs/promises';
import { batchRecordType } from '../distill/batch-store.js';

export type IndexedStatus = 'passed' | 'failed' | 'error';
const STATUSES: readonly IndexedStatus[] = ['passed', 'failed', 'error'];

export const MAX_LOG_LINE_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 256 * 1024;

interface FinalResult {
  offset: number;
  length: number;
  status: IndexedStatus;
  interrupted: boolean;
}

export interface BatchLogIndex {
  /** Bytes of the log indexed (up to the end of its last whole line). */
  indexedBytes: number;
  readonly finals: Map<string, FinalResult>;
  readonly started: Set<string>;
  /** Lines that are not records: torn by a kill, hand-edited, or too long to read. */
  unreadable: number;
  /** Finals in log order, rebuilt when the index grows. */
  ordered?: FinalResult[];
}

export function emptyLogIndex(): BatchLogIndex {
  return { indexedBytes: 0, finals: new Map(), started: new Set(), unreadable: 0 };
}

export interface LogCounts {
  readonly results: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly interrupted: number;
  /** Cases started with no result yet (running now, or cut off by a kill). */
  readonly startedWithoutResult: number;
  readonly unreadableLines: number;
}

export function logCounts(index: BatchLogIndex): LogCounts {
  let passed = 0;
  let failed = 0;
  let errors = 0;
  let interrupted = 0;
  for (const result of index.finals.values()) {
    if (result.status === 'passed') passed++;
    else if (result.status === 'failed') failed++;
    else errors++;
    if (result.interrupted) interrupted++;
  }
  let startedWithoutResult = 0;
  for (const key of index.started) if (!index.finals.has(key)) startedWithoutResult++;
  return {
    results: index.finals.size,
    passed,
    failed,
    errors,
    interrupted,
    startedWithoutResult,
    unreadableLines: index.unreadable,
  };
}

/**
 * Reads the log from `index.indexedBytes` to its current end, adding what it finds. False when the log is shorter
 * than what was indexed: not the same log any more (only a hand edit does that), so the caller starts a new index.
 */
export async function extendLogIndex(index: BatchLogIndex, handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size < index.indexedBytes) return false;
  if (size === index.indexedBytes) return true;
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = index.indexedBytes;
  let lineStart = position;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let tooLong = false;
  let grew = false;
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (bytesRead === 0) break;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      // A line wholly inside this chunk is decoded in place; only a line across chunks is copied together.
      const whole = end !== bytesRead && partBytes === 0 && !tooLong;
      if (!tooLong && !whole) {
        if (partBytes + (end - from) > MAX_LOG_LINE_BYTES) {
          tooLong = true;
          parts = [];
          partBytes = 0;
        } else {
          parts.push(Buffer.from(chunk.subarray(from, end)));
          partBytes += end - from;
        }
      }
      if (end === bytesRead) break;
      // A whole line: [lineStart, position + newline).
      const lineEnd = position + newline;
      if (tooLong) index.unreadable++;
      else if (whole) {
        if (end - from > MAX_LOG_LINE_BYTES) index.unreadable++;
        else grew = addLine(index, chunk.toString('utf8', from, end), lineStart, lineEnd - lineStart) || grew;
      } else if (partBytes > 0)
        grew = addLine(index, Buffer.concat(parts, partBytes).toString('utf8'), lineStart, lineEnd - lineStart) || grew;
      parts = [];
      partBytes = 0;
      tooLong = false;
      lineStart = lineEnd + 1;
      index.indexedBytes = lineStart;
      from = newline + 1;
    }
    position += bytesRead;
  }
  if (grew) index.ordered = undefined;
  return true;
}

/** Adds one line; true when it was a result. */
function addLine(index: BatchLogIndex, line: string, offset: number, length: number): boolean {
  const text = line.trim();
  if (text === '') return false;
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    index.unreadable++;
    return false;
  }
  if (typeof record !== 'object' || record === null) {
    index.unreadable++;
    return false;
  }
  const { id, status, interrupted } = record as Record<string, unknown>;
  // Earlier versions' `start` and `result` read as `case-start` and `case-end`.
  const type = batchRecordType((record as Record<string, unknown>).type);
  if ((typeof id !== 'string' && typeof id !== 'number') || type === undefined) {
    index.unreadable++;
    return false;
  }
  const key = String(id);
  if (type === 'case-start') {
    index.started.add(key);
    return false;
  }
  if (!STATUSES.includes(status as IndexedStatus)) {
    index.unreadable++;
    return false;
  }
  // A later result for the same case (a resume re-ran an interrupted one) replaces the earlier one.
  index.finals.delete(key);
  index.finals.set(key, { offset, length, status: status as IndexedStatus, interrupted: interrupted === true });
  return true;
}

/** The final results in log order (completion order), optionally of one status. */
export function orderedResults(index: BatchLogIndex, status?: IndexedStatus): readonly FinalResult[] {
  // A replaced result is deleted and set again, so the map's order is the log's order already.
  index.ordered ??= [...index.finals.values()];
  return status ? index.ordered.filter((result) => result.status === status) : index.ordered;
}

/** The record at an indexed place, parsed again (the index keeps only where it is). */
export async function readIndexedRecord(
  handle: FileHandle,
  result: Pick<FinalResult, 'offset' | 'length'>,
): Promise<Record<string, unknown> | undefined> {
  const buffer = Buffer.alloc(result.length);
  const { bytesRead } = await handle.read(buffer, 0, result.length, result.offset);
  try {
    const value = JSON.parse(buffer.subarray(0, bytesRead).toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
