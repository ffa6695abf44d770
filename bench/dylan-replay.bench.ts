/**
 * Weft's DyLAN team engine on real model text: the DyLAN authors' recorded MMLU runs (GPT-3.5 replies of their
 * teams of 2, 3, 4 and 7 agents) replayed through it (docs/teams.md#replaying-recorded-runs). Per team and
 * overall: replies per query by Weft and by the authors' runs, query-by-query count matches, agreeing final
 * answers, and mean importance beside the authors' figures.
 *
 * Reads the authors' `exp/MMLU` folder from WEFT_DYLAN_EXP; without it the bench says so and reports nothing.
 * Get a copy with `git archive HEAD exp/MMLU | tar -x -C /tmp/dylan` in a clone of their repository and set
 * WEFT_DYLAN_EXP=/tmp/dylan/exp/MMLU.
 *
 * Three replays per team: the authors' answer reading in an order of calls consistent with the recording
 * (every count should match), the same in the engine's own seeded order (checked against every order of the
 * authors' calls), and Weft's own answer reading. Recordings whose `.txt` disagrees with their `.json` are left
 * out and counted. Agent names are the roles the
 * authors' team optimisation picked, inferred from the seven-agent run of the same subject (topRoles).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { listRecordedTeams, readDylanRecording } from '../src/team/replay-files.js';
import { DYLAN_MMLU_ROLES, topRoles, type DylanRecording } from '../src/team/replay-recording.js';
import { replayRecording, summarizeReplays, type ReplayReport } from '../src/team/replay-run.js';
import type { ReplayReading } from '../src/team/replay-model.js';
import type { Bench, BenchReport, ReportRow } from './report.js';

const SHOWN_MISMATCHES = 8;

interface Variant {
  readonly reading: ReplayReading;
  readonly order: 'recorded' | 'engine';
}
const VARIANTS: readonly Variant[] = [
  { reading: 'authors', order: 'recorded' },
  { reading: 'authors', order: 'engine' },
  { reading: 'weft', order: 'recorded' },
];

function variantLabel(variant: Variant): string {
  return `${variant.reading} reading, ${variant.order} order`;
}

export const dylanReplayBench: Bench = {
  name: 'dylan-replay',
  async run(): Promise<BenchReport> {
    const title = "DyLAN: the authors' recorded MMLU runs replayed through Weft's team engine";
    const expDir = process.env.WEFT_DYLAN_EXP;
    if (!expDir || !existsSync(expDir)) {
      const reason = expDir
        ? `skipped: WEFT_DYLAN_EXP=${expDir} does not exist`
        : "skipped: set WEFT_DYLAN_EXP to the DyLAN authors' exp/MMLU folder";
      console.log(reason);
      return { title, rows: [], notes: [reason] };
    }
    const teams = listRecordedTeams(expDir);
    const sevenDir = teams.find((team) => team.agents === 7)?.dir;
    const rows: ReportRow[] = [];
    const cells: string[][] = [];
    const notes: string[] = [];
    const everything = new Map<string, ReplayReport[]>(VARIANTS.map((v) => [variantLabel(v), []]));
    for (const team of teams) {
      const recordings = team.files.map(readDylanRecording);
      const consistent = recordings.filter((recording) => recording.issues.length === 0);
      const left = recordings.filter((recording) => recording.issues.length > 0);
      if (left.length > 0)
        notes.push(
          `${team.agents} agents: ${left.length} recording(s) left out, their .txt disagrees with their .json (e.g. ${left[0]!.issues[0]!.message})`,
        );
      for (const variant of VARIANTS) {
        const reports: ReplayReport[] = [];
        for (const recording of consistent)
          reports.push(await replayRecording(recording, { ...variant, roles: rolesOf(recording, sevenDir) }));
        everything.get(variantLabel(variant))!.push(...reports);
        cells.push(
          tableRow(`${team.agents} agents`, variantLabel(variant), reports, recordings.length, consistent.length),
        );
        const summary = summarizeReplays(reports);
        const label = `${team.agents} agents, ${variantLabel(variant)}`;
        if (variant.reading === 'authors' && variant.order === 'recorded') {
          rows.push({
            label: `${label}: queries whose reply count differs or fails`,
            value: summary.countMismatches.length,
            goal: { comparison: '<=' as const, target: team.agents === 4 ? 1 : 0 },
          });
          notes.push(...mismatchNotes(label, summary.countMismatches));
          notes.push(importanceNote(team.agents, consistent, reports));
        }
        if (variant.reading === 'authors' && variant.order === 'engine') {
          rows.push(
            {
              label: `${label}: of ${summary.orderFree} order-free queries, count differs`,
              value: summary.orderFree - summary.orderFreeMatches,
            },
            {
              label: `${label}: queries no call order of the authors' explains`,
              value: summary.notSameUpToOrder,
              goal: { comparison: '<=' as const, target: 0 },
            },
          );
          notes.push(...mismatchNotes(label, summary.countMismatches));
        }
      }
    }
    for (const variant of VARIANTS)
      cells.push(
        tableRow('overall', variantLabel(variant), everything.get(variantLabel(variant))!, Number.NaN, Number.NaN),
      );
    notes.push(
      "Reading: 'authors' reads each reply's answer with the authors' rule (last (X), else last X)); 'weft' with Weft's extractAnswer.",
      "Order: 'recorded' calls a layer's agents in an order consistent with the recording (the agents the authors called, the stopping consensus last, then the others); 'engine' in the engine's own seeded order.",
      "With the engine's order a query fails when that order reaches an agent the authors' run, in its own random order, never called before it stopped.",
      'The 4-agent goal allows the one query whose recorded ranker kept a single agent (its two picks mapped to one agent): Weft keeps two distinct agents and falls back.',
      "Importance differs where a node's ratings are given in the authors' shuffled order of its peers (not recorded) or read differently (their N/A = 0, Weft's clamp to 1-5).",
    );
    return {
      title,
      rows,
      table: {
        header: [
          'team',
          'replay',
          'files used',
          'queries',
          'replayed',
          'authors replies/q',
          'same queries',
          'Weft replies/q',
          'count match',
          'answers agree',
          'importance match',
        ],
        cells,
      },
      notes,
    };
  },
};

/** The team's roles for a recording of N < 7 agents: the top N of the seven-agent run of its subject. */
function rolesOf(recording: DylanRecording, sevenDir: string | undefined): readonly string[] | undefined {
  if (recording.agents === DYLAN_MMLU_ROLES.length) return DYLAN_MMLU_ROLES;
  if (!sevenDir) return undefined;
  const seven = join(sevenDir, `${recording.subject}_${DYLAN_MMLU_ROLES.length}${recording.rounds}.json`);
  if (!existsSync(seven)) return undefined;
  const figures = readDylanRecording(seven).figures;
  return figures ? topRoles(figures.meanImportance, recording.agents) : undefined;
}

function tableRow(
  team: string,
  variant: string,
  reports: readonly ReplayReport[],
  files: number,
  used: number,
): string[] {
  const s = summarizeReplays(reports);
  return [
    team,
    variant,
    Number.isNaN(files) ? '' : `${used}/${files}`,
    String(s.queries),
    String(s.replayed),
    s.recordedRepliesPerQuery.toFixed(3),
    s.recordedRepliesPerReplayedQuery.toFixed(3),
    s.weftRepliesPerQuery.toFixed(3),
    `${s.countMatches}/${s.replayed}`,
    `${s.answersAgree}/${s.answersComparable}`,
    `${s.importanceWithin1e9}/${s.importanceCompared}`,
  ];
}

function mismatchNotes(label: string, mismatches: ReturnType<typeof summarizeReplays>['countMismatches']): string[] {
  if (mismatches.length === 0) return [`${label}: every query's reply count matches the authors' run`];
  const failed = mismatches.filter((m) => m.error !== undefined).length;
  const ordered = mismatches.filter((m) => !m.orderFree).length;
  const shown = [...mismatches].sort((a, b) => Number(b.orderFree) - Number(a.orderFree)).slice(0, SHOWN_MISMATCHES);
  return [
    `${label}: ${mismatches.length} query(ies) differ (${failed} failed for a missing reply; ${ordered} stopped on a consensus before round 3, where the count depends on the unrecorded call order), first ${shown.length}:`,
    ...shown.map(
      (m) =>
        `  ${basename(m.file)}:${m.line}${m.orderFree ? ' (order-free)' : ''}${m.keptByRanker !== undefined && m.keptByRanker < 2 ? ` (the authors' ranker kept ${m.keptByRanker} agent: its two picks mapped to one agent; Weft needs 2 distinct and falls back)` : ''} authors ${m.recorded}, Weft ${m.weft ?? (m.missingReply ? `needs the unrecorded reply of ${m.missingReply}` : `failed: ${m.error}`)}`,
    ),
  ];
}

/** Mean importance per agent (summed over rounds), Weft beside the authors', over the replayed queries. */
function importanceNote(
  agents: number,
  recordings: readonly DylanRecording[],
  reports: readonly ReplayReport[],
): string {
  const weft = Array.from({ length: agents }, () => 0);
  const authors = Array.from({ length: agents }, () => 0);
  let n = 0;
  reports.forEach((report, index) => {
    const figures = recordings[index]!.figures!;
    report.queries.forEach((query, q) => {
      if (!query.weftImportance) return;
      n++;
      query.weftImportance.forEach((value, node) => {
        weft[node % agents]! += value;
        authors[node % agents]! += figures.importance[q]![node]!;
      });
    });
  });
  const show = (values: number[]): string => values.map((v) => (n === 0 ? 0 : v / n).toFixed(3)).join(' ');
  return `${agents} agents: mean importance per agent column over ${n} replayed queries, authors ${show(authors)} | Weft ${show(weft)}`;
}
