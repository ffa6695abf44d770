/**
 * How a run's plan changed (`weft show <runId> --history`): each version, what caused it, what it changed and,
 * when they were recorded, the candidates it was chosen from. Pure: built from the stored plan versions and the
 * event log, so it works on a finished run, an interrupted one, or one still going.
 *
 * The stored plan versions are the primary source (workflow, cause, time); the `plan-chosen` and `plan-update`
 * events fill in a version the store has not saved (the event is written first) and give each version its time
 * in the run. Diffs are computed from consecutive workflows, so they name what changed as well as where.
 */
import type { WorkflowJson } from '../graph/workflow.js';
import type { PlanVersion } from '../store/run-store.js';
import type { CandidateSummary, DiscardedWork, WeftEvent } from './events.js';

export interface HistorySubtask {
  readonly id: string;
  readonly objective: string;
  readonly agent: string;
  readonly dependsOn: readonly string[];
}

export interface FromTo<T> {
  readonly from: T;
  readonly to: T;
}

/** A subtask whose objective or agent changed; each field is present only when it changed. */
export interface SubtaskChange {
  readonly id: string;
  readonly objective?: FromTo<string>;
  readonly agent?: FromTo<string>;
}

export interface SubtaskRewiring {
  readonly id: string;
  readonly dependsOn: FromTo<readonly string[]>;
}

/** What a version changed against the one before it. Lists keep the order of the workflow they come from. */
export interface PlanVersionDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly SubtaskChange[];
  readonly rewired: readonly SubtaskRewiring[];
}

export interface PlanHistoryVersion {
  readonly version: number;
  readonly cause: string;
  /** When the store saved it (ISO-8601); null when only the event log has it. */
  readonly createdAt: string | null;
  /** Milliseconds since the run started, from its event; null when the log does not have it. */
  readonly atMs: number | null;
  /** Against the previous version; null for the first one. */
  readonly diff: PlanVersionDiff | null;
  readonly subtasks: readonly HistorySubtask[];
  /** The candidates this version was chosen from, when a `plan-candidates` event recorded them. */
  readonly candidates?: readonly CandidateSummary[];
  /** The index of the chosen candidate among `candidates`, when the log says (runs recorded before update rounds logged it do not). */
  readonly chosen?: number;
  /** Completed or running subtasks whose work this version discarded, and why (from its `plan-update` event). */
  readonly discarded?: readonly DiscardedWork[];
  /**
   * Subtasks this version added, removed or modified (objective, agent or dependencies) over the previous version's
   * size; null for the first version.
   */
  readonly changedRatio: number | null;
}

/** The Flow paper's update measure (Table 5), over the whole run; docs/algorithms.md#changed-ratio. */
export interface ChangeMeasure {
  /** Subtasks in the first version (the chosen plan, before execution). */
  readonly initialSubtasks: number;
  /** Subtasks of the first version that a later version modified or removed. */
  readonly changedSubtasks: number;
  /** changedSubtasks / initialSubtasks (0 for an empty plan). */
  readonly changedRatio: number;
  /** The mean of the versions' `changedRatio` over the updates; null when the plan never changed. */
  readonly meanUpdateRatio: number | null;
}

export interface PlanHistory {
  readonly versions: readonly PlanHistoryVersion[];
  /** Null when no plan was recorded. */
  readonly changes: ChangeMeasure | null;
  /** Rounds of update candidates that produced no new version (the revision changed nothing, or was ignored). */
  readonly updatesWithoutChange: number;
}

interface VersionSource {
  workflow?: WorkflowJson;
  cause?: string;
  createdAt?: string;
  atMs?: number;
  candidates?: CandidateSummary[];
  chosen?: number;
  discarded?: readonly DiscardedWork[];
}

export function planHistory(
  events: Iterable<WeftEvent>,
  versions: readonly Pick<PlanVersion, 'version' | 'workflow' | 'cause' | 'createdAt'>[],
): PlanHistory {
  const sources = new Map<number, VersionSource>();
  const source = (version: number): VersionSource => {
    let found = sources.get(version);
    if (!found) sources.set(version, (found = {}));
    return found;
  };
  for (const stored of versions)
    Object.assign(source(stored.version), {
      workflow: stored.workflow,
      cause: stored.cause,
      createdAt: stored.createdAt,
    });

  let pending: { purpose: 'plan' | 'update'; candidates: CandidateSummary[]; chosen?: number } | undefined;
  let updatesWithoutChange = 0;
  const settlePending = () => {
    if (pending?.purpose === 'update') updatesWithoutChange += 1;
    pending = undefined;
  };
  for (const event of events) {
    switch (event.type) {
      case 'plan-candidates':
        settlePending();
        pending = {
          purpose: event.purpose,
          candidates: event.candidates,
          ...(event.chosen !== undefined ? { chosen: event.chosen } : {}),
        };
        break;
      case 'plan-chosen':
      case 'plan-update': {
        const entry = source(event.version);
        // A resumed run may announce a version again; the first announcement is when it was made.
        const first = entry.atMs === undefined;
        if (first) entry.atMs = event.at;
        entry.workflow ??= event.workflow;
        entry.cause ??= event.type === 'plan-update' ? event.cause : 'initial plan';
        if (event.type === 'plan-update' && event.discarded && event.discarded.length > 0)
          entry.discarded ??= event.discarded;
        const purpose = event.type === 'plan-chosen' ? 'plan' : 'update';
        if (first && pending?.purpose === purpose) {
          entry.candidates = pending.candidates;
          if (event.type === 'plan-chosen') entry.chosen = event.index;
          else if (pending.chosen !== undefined) entry.chosen = pending.chosen;
          pending = undefined;
        }
        break;
      }
      default:
        break;
    }
  }
  settlePending();

  const result: PlanHistoryVersion[] = [];
  let previous: readonly HistorySubtask[] | undefined;
  for (const version of [...sources.keys()].sort((left, right) => left - right)) {
    const entry = sources.get(version) as VersionSource;
    if (!entry.workflow) continue;
    const subtasks = entry.workflow.subtasks.map(({ id, objective, agent, dependsOn }) => ({
      id,
      objective,
      agent,
      dependsOn: [...dependsOn],
    }));
    const diff = previous === undefined ? null : diffSubtasks(previous, subtasks);
    result.push({
      version,
      cause: entry.cause ?? '',
      createdAt: entry.createdAt ?? null,
      atMs: entry.atMs ?? null,
      diff,
      subtasks,
      ...(entry.candidates ? { candidates: entry.candidates } : {}),
      ...(entry.chosen !== undefined ? { chosen: entry.chosen } : {}),
      ...(entry.discarded ? { discarded: entry.discarded } : {}),
      changedRatio: diff === null || previous === undefined ? null : changedCount(diff) / Math.max(1, previous.length),
    });
    previous = subtasks;
  }
  return { versions: result, changes: changeMeasure(result), updatesWithoutChange };
}

/** The change measure of a run's plan versions, oldest first (the run summary's `planChanges`). */
export function planChangesOf(workflows: readonly Pick<WorkflowJson, 'subtasks'>[]): ChangeMeasure | null {
  let previous: readonly HistorySubtask[] | undefined;
  const versions = workflows.map((workflow) => {
    const subtasks = workflow.subtasks.map(({ id, objective, agent, dependsOn }) => ({
      id,
      objective,
      agent,
      dependsOn,
    }));
    const changedRatio =
      previous === undefined ? null : changedCount(diffSubtasks(previous, subtasks)) / Math.max(1, previous.length);
    previous = subtasks;
    return { subtasks, changedRatio };
  });
  return changeMeasure(versions);
}

/** Added, removed and modified subtasks (a subtask both changed and rewired counts once). */
export function changedCount(diff: PlanVersionDiff): number {
  const modified = new Set([...diff.changed.map((change) => change.id), ...diff.rewired.map((wiring) => wiring.id)]);
  return diff.added.length + diff.removed.length + modified.size;
}

/**
 * The paper counts the subtasks of the plan chosen before execution that were updated by the end of the run, over
 * that plan's size; the mean per update is Weft's finer view of the same thing.
 */
function changeMeasure(
  versions: readonly Pick<PlanHistoryVersion, 'subtasks' | 'changedRatio'>[],
): ChangeMeasure | null {
  const first = versions[0];
  if (!first) return null;
  const initial = new Map(first.subtasks.map((subtask) => [subtask.id, subtask]));
  const touched = new Set<string>();
  for (const version of versions.slice(1)) {
    const now = new Map(version.subtasks.map((subtask) => [subtask.id, subtask]));
    for (const [id, original] of initial) {
      const current = now.get(id);
      if (!current || !sameSubtask(original, current)) touched.add(id);
    }
  }
  const ratios = versions.flatMap((version) => (version.changedRatio === null ? [] : [version.changedRatio]));
  return {
    initialSubtasks: initial.size,
    changedSubtasks: touched.size,
    changedRatio: initial.size === 0 ? 0 : touched.size / initial.size,
    meanUpdateRatio: ratios.length === 0 ? null : ratios.reduce((sum, ratio) => sum + ratio, 0) / ratios.length,
  };
}

function sameSubtask(left: HistorySubtask, right: HistorySubtask): boolean {
  return left.objective === right.objective && left.agent === right.agent && sameSet(left.dependsOn, right.dependsOn);
}

/** Like graph's diffWorkflows, with the old and new values of what changed. */
export function diffSubtasks(before: readonly HistorySubtask[], after: readonly HistorySubtask[]): PlanVersionDiff {
  const beforeById = new Map(before.map((subtask) => [subtask.id, subtask]));
  const afterIds = new Set(after.map((subtask) => subtask.id));
  const added: string[] = [];
  const changed: SubtaskChange[] = [];
  const rewired: SubtaskRewiring[] = [];
  for (const subtask of after) {
    const old = beforeById.get(subtask.id);
    if (!old) {
      added.push(subtask.id);
      continue;
    }
    if (old.objective !== subtask.objective || old.agent !== subtask.agent) {
      changed.push({
        id: subtask.id,
        ...(old.objective !== subtask.objective ? { objective: { from: old.objective, to: subtask.objective } } : {}),
        ...(old.agent !== subtask.agent ? { agent: { from: old.agent, to: subtask.agent } } : {}),
      });
    }
    if (!sameSet(old.dependsOn, subtask.dependsOn))
      rewired.push({ id: subtask.id, dependsOn: { from: old.dependsOn, to: subtask.dependsOn } });
  }
  const removed = before.filter((subtask) => !afterIds.has(subtask.id)).map((subtask) => subtask.id);
  return { added, removed, changed, rewired };
}

function sameSet(left: readonly string[], right: readonly string[]): boolean {
  const leftSet = new Set(left);
  const rightSet = new Set(right);
  return leftSet.size === rightSet.size && [...leftSet].every((item) => rightSet.has(item));
}

/** The history as text, one block per version. */
export function formatPlanHistory(history: PlanHistory): string {
  const lines: string[] = [];
  if (history.versions.length === 0) lines.push('no plan recorded');
  for (const version of history.versions) {
    const when = version.atMs === null ? '' : ` (at ${(version.atMs / 1000).toFixed(2)} s)`;
    lines.push(`v${version.version}: ${oneLine(version.cause)}${when}`);
    if (version.candidates && version.candidates.length > 0) {
      lines.push(`  candidates${version.chosen === undefined ? '' : ` (chosen: #${version.chosen + 1})`}:`);
      for (const candidate of version.candidates)
        lines.push(`    ${formatCandidate(candidate, candidate.index === version.chosen)}`);
    }
    const byId = new Map(version.subtasks.map((subtask) => [subtask.id, subtask]));
    if (version.diff === null) {
      lines.push(`  ${version.subtasks.length} subtask${version.subtasks.length === 1 ? '' : 's'}:`);
      for (const subtask of version.subtasks) lines.push(`    ${describeSubtask(subtask)}`);
      lines.push(...discardedLines(version));
      continue;
    }
    const { added, removed, changed, rewired } = version.diff;
    if (added.length + removed.length + changed.length + rewired.length === 0) lines.push('  no changes');
    for (const id of added) {
      const subtask = byId.get(id);
      lines.push(`  + ${subtask ? describeSubtask(subtask) : id}`);
    }
    for (const id of removed) lines.push(`  - ${id}`);
    for (const change of changed) {
      if (change.objective)
        lines.push(`  ~ ${change.id}: ${quote(change.objective.from)} → ${quote(change.objective.to)}`);
      if (change.agent) lines.push(`  ~ ${change.id}: agent ${change.agent.from} → ${change.agent.to}`);
    }
    for (const wiring of rewired)
      lines.push(`  ↻ ${wiring.id}: after ${list(wiring.dependsOn.from)} → after ${list(wiring.dependsOn.to)}`);
    lines.push(...discardedLines(version));
    if (version.changedRatio !== null) lines.push(`  changed ratio ${percent(version.changedRatio)}`);
  }
  const changes = history.changes;
  if (changes && history.versions.length > 1) {
    lines.push(
      `changed: ${changes.changedSubtasks} of the ${changes.initialSubtasks} initial subtasks (${percent(changes.changedRatio)}); ` +
        `mean changed ratio per update ${changes.meanUpdateRatio === null ? '-' : percent(changes.meanUpdateRatio)}`,
    );
  }
  if (history.updatesWithoutChange > 0) {
    const rounds = history.updatesWithoutChange;
    lines.push(`${rounds} update round${rounds === 1 ? '' : 's'} left the plan unchanged`);
  }
  return lines.join('\n');
}

function formatCandidate(candidate: CandidateSummary, chosen: boolean): string {
  const mark = chosen ? '*' : ' ';
  if (candidate.error !== undefined) return `${mark}#${candidate.index + 1} unusable: ${oneLine(candidate.error)}`;
  return (
    `${mark}#${candidate.index + 1} ${candidate.subtasks} subtasks, ${candidate.levels} levels, ` +
    `parallelism ${candidate.parallelism.toFixed(3)}, dep.complexity ${candidate.dependencyComplexity.toFixed(3)}`
  );
}

function describeSubtask(subtask: HistorySubtask): string {
  const after = subtask.dependsOn.length > 0 ? ` after ${subtask.dependsOn.join(', ')}` : '';
  return `${subtask.id} [${subtask.agent}]${after}: ${oneLine(subtask.objective)}`;
}

function discardedLines(version: PlanHistoryVersion): string[] {
  return (version.discarded ?? []).map((work) => `  ⟲ ${work.id} runs again: ${oneLine(work.reason)}`);
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(0)} %`;
}

function list(ids: readonly string[]): string {
  return ids.length === 0 ? '(nothing)' : ids.join(', ');
}

function quote(text: string): string {
  return JSON.stringify(oneLine(text));
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
