/**
 * `weft team replay PATH`: the DyLAN authors' recorded runs (real model replies) replayed through Weft's team
 * engine, with Weft's replies per query, answers and importance beside the recorded figures
 * (docs/teams.md#replaying-recorded-runs). PATH is one recording (`<subject>_<N>3.json`, its `.txt` beside it), a
 * folder of recordings, or the authors' `exp/MMLU` folder with its `mmlu_optimal7_<N>` team folders.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WeftError } from '../../errors.js';
import {
  listRecordedTeams,
  readDylanRecording,
  replayRecording,
  summarizeReplays,
  type DylanRecording,
  type ReplayReport,
  type ReplaySummary,
} from '../../internal.js';
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';
import { stopCheckFlag } from './team-command-support.js';

export interface TeamReplayFlags {
  readonly reading?: string;
  readonly order?: string;
  readonly stopCheck?: string;
  readonly mismatches?: string;
  readonly json?: boolean;
}

interface ReplayGroup {
  readonly label: string;
  readonly files: readonly string[];
}

/** The mismatching queries listed per group in the text report unless `--mismatches` says otherwise. */
const DEFAULT_MISMATCHES = 10;

export async function teamReplayCommand(
  path: string,
  flags: TeamReplayFlags,
  output: Output,
  signal?: AbortSignal,
): Promise<number> {
  const reading = choice('--reading', flags.reading, ['authors', 'weft'] as const) ?? 'authors';
  const order = choice('--order', flags.order, ['recorded', 'engine'] as const) ?? 'recorded';
  const stopCheck = stopCheckFlag(flags.stopCheck);
  const listed = integerFlag('mismatches', flags.mismatches) ?? DEFAULT_MISMATCHES;
  const groups = groupsOf(path);
  const results: {
    label: string;
    used: number;
    leftOut: { file: string; issue: string }[];
    summary: ReplaySummary;
  }[] = [];
  for (const group of groups) {
    const recordings: DylanRecording[] = group.files.map(readDylanRecording);
    // A .txt from another run than its .json would compare unrelated figures: left out, and said why.
    const leftOut = recordings
      .filter((recording) => recording.issues.length > 0)
      .map((recording) => ({ file: recording.file, issue: recording.issues[0]!.message }));
    const reports: ReplayReport[] = [];
    for (const recording of recordings.filter((r) => r.issues.length === 0)) {
      signal?.throwIfAborted();
      reports.push(
        await replayRecording(recording, {
          reading,
          order,
          ...(stopCheck !== undefined ? { engine: { stopCheck } } : {}),
          ...(signal ? { signal } : {}),
        }),
      );
      output.log(`replay: ${recording.file}: ${recording.queries.length} queries`);
    }
    results.push({ label: group.label, used: reports.length, leftOut, summary: summarizeReplays(reports) });
  }
  const mismatched = results.reduce((n, r) => n + r.summary.countMismatches.length, 0);
  if (output.json) {
    output.document({ path, reading, order, stopCheck: stopCheck ?? 'answer', groups: results, mismatched });
  } else {
    for (const result of results) for (const line of formatGroup(result, listed)) output.text(line);
  }
  // A differing query is a finding of the report, not a failure of the command.
  return 0;
}

function formatGroup(
  result: { label: string; used: number; leftOut: { file: string; issue: string }[]; summary: ReplaySummary },
  listed: number,
): string[] {
  const s = result.summary;
  const fixed = (value: number) => value.toFixed(3);
  const lines = [
    `${result.label}: ${result.used} recording(s), ${s.queries} queries, ${s.replayed} replayed`,
    `  replies per query: authors ${fixed(s.recordedRepliesPerQuery)}; over the replayed queries authors ${fixed(s.recordedRepliesPerReplayedQuery)}, Weft ${fixed(s.weftRepliesPerQuery)}`,
    `  reply counts equal: ${s.countMatches}/${s.replayed}; answers agree: ${s.answersAgree}/${s.answersComparable}; importance within 1e-9: ${s.importanceWithin1e9}/${s.importanceCompared}`,
  ];
  const [first] = result.leftOut;
  if (first)
    lines.push(
      `  left out ${result.leftOut.length} recording(s) whose .txt disagrees with its .json (all in --json), e.g. ${first.file}: ${first.issue}`,
    );
  for (const m of s.countMismatches.slice(0, listed))
    lines.push(
      `  ${m.file}:${m.line}: authors ${m.recorded}, ${m.weft !== undefined ? `Weft ${m.weft}` : `Weft failed: ${m.missingReply !== undefined ? `needs the unrecorded reply of ${m.missingReply}` : m.error}`}`,
    );
  if (s.countMismatches.length > listed)
    lines.push(`  … ${s.countMismatches.length - listed} more differing queries (--mismatches N, or --json)`);
  return lines;
}

/** One recording, a folder of recordings, or the authors' exp/MMLU folder (one group per team size). */
function groupsOf(path: string): ReplayGroup[] {
  if (!existsSync(path)) throw new WeftError('BAD_INPUT', 'no such file or folder', { location: { file: path } });
  if (!statSync(path).isDirectory()) return [{ label: path, files: [path] }];
  const teams = listRecordedTeams(path);
  if (teams.length > 0)
    return teams.map((team) => ({ label: `${team.agents} agents (${team.dir})`, files: team.files }));
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
  if (files.length === 0)
    throw new WeftError(
      'BAD_INPUT',
      `${path}: no recordings (.json files) and no mmlu_optimal7_<N> team folders in this folder`,
      { location: { file: path } },
    );
  return [{ label: path, files }];
}

function choice<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const found = allowed.find((option) => option === value.trim());
  if (found === undefined)
    throw new WeftError('BAD_INPUT', `${flag} must be ${allowed.join(' or ')}, got ${JSON.stringify(value)}`, {
      location: { field: flag },
    });
  return found;
}
