/**
 * Where the WorfBench gold data lives for tests, and a plain reader of every record's gold answer. Only node
 * built-ins.
 *
 * A clone of the repository holds a small subset (test/fixtures/worfbench, with its licence and provenance); the
 * full development set (1,746 records) is optional benchmark data, found through WEFT_WORFBENCH_DATA
 * (test/optional-data.ts). Tests of a few records read the subset; tests of a property of every record run on the
 * subset always and on the full set when it is there (`goldSets`), saying so when it is not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionalData } from '../optional-data.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The subset in the repository: all of os.json, the first five records of each other file, the named ones. */
export const GOLD_DIR = resolve(HERE, '..', 'fixtures', 'worfbench');
/** The full development set, outside the repository; may be absent. */
export const FULL_GOLD = optionalData('WEFT_WORFBENCH_DATA', 'the full WorfBench gold set (1,746 records)', [
  'shared',
  'data',
  'worfbench',
]);
/** Records in the subset and in the full set. */
export const FIXTURE_RECORDS = 108;
export const FULL_RECORDS = 1746;

export interface GoldSet {
  /** For test titles: `the repository's 92-record subset` or `all 1,746 records`. */
  readonly name: string;
  readonly dir: string;
  /** Whether this is the full development set (whose exact counts the tests know). */
  readonly full: boolean;
  readonly records: number;
}

let told = false;

/** The gold sets a whole-data test runs on: the subset, and the full set when present (else a printed reason). */
export function goldSets(): readonly GoldSet[] {
  const sets: GoldSet[] = [
    { name: `the repository's ${FIXTURE_RECORDS}-record subset`, dir: GOLD_DIR, full: false, records: FIXTURE_RECORDS },
  ];
  if (FULL_GOLD.path !== undefined) {
    sets.push({
      name: `all ${FULL_RECORDS.toLocaleString('en')} records`,
      dir: FULL_GOLD.path,
      full: true,
      records: FULL_RECORDS,
    });
  } else if (!told) {
    told = true;
    console.log(
      `skipping the full gold set: ${FULL_GOLD.missing}; the ${FIXTURE_RECORDS}-record subset in test/fixtures/worfbench is tested instead`,
    );
  }
  return sets;
}

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

const cache = new Map<string, readonly GoldAnswer[]>();

/** Every record of every `*.json` file in `dir` (the subset by default), files in name order. Read once. */
export function loadGoldAnswers(dir: string = GOLD_DIR): readonly GoldAnswer[] {
  const cached = cache.get(dir);
  if (cached) return cached;
  const answers: GoldAnswer[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const records = JSON.parse(readFileSync(resolve(dir, file), 'utf8')) as RawRecord[];
    records.forEach((record, index) => {
      const last = record.conversations[record.conversations.length - 1];
      const user = record.conversations.find((message) => message.role === 'user');
      if (last?.role !== 'assistant')
        throw new Error(`${file} record ${index} (${record.id}): the last message is not the assistant's`);
      answers.push({
        id: record.id,
        source: record.source,
        file,
        index,
        task: user?.content ?? '',
        answer: last.content,
      });
    });
  }
  cache.set(dir, answers);
  return answers;
}
