/**
 * Where the WorfBench gold data lives (../shared/data/worfbench from the repository root; never copied into the
 * repository), and a plain reader of every record's gold answer for tests and benchmarks. Only node built-ins.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GOLD_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'data', 'worfbench');

export interface GoldAnswer {
  readonly id: string;
  readonly source: string;
  /** The file's name, e.g. `lumos.json`. */
  readonly file: string;
  /** The record's position in its file, 0-based. */
  readonly index: number;
  /** The user message: the task and its action list. */
  readonly task: string;
  /** The last (assistant) message: the gold workflow text. */
  readonly answer: string;
}

interface RawRecord {
  readonly id: string;
  readonly source: string;
  readonly conversations: readonly { readonly role: string; readonly content: string }[];
}

let cached: readonly GoldAnswer[] | undefined;

/** Every record of every `*.json` file in GOLD_DIR, files in name order. Read once per process. */
export function loadGoldAnswers(): readonly GoldAnswer[] {
  if (cached) return cached;
  const answers: GoldAnswer[] = [];
  for (const file of readdirSync(GOLD_DIR).filter((name) => name.endsWith('.json')).sort()) {
    const records = JSON.parse(readFileSync(resolve(GOLD_DIR, file), 'utf8')) as RawRecord[];
    records.forEach((record, index) => {
      const last = record.conversations[record.conversations.length - 1];
      const user = record.conversations.find((message) => message.role === 'user');
      if (last?.role !== 'assistant') throw new Error(`${file} record ${index} (${record.id}): the last message is not the assistant's`);
      answers.push({ id: record.id, source: record.source, file, index, task: user?.content ?? '', answer: last.content });
    });
  }
  cached = answers;
  return answers;
}
