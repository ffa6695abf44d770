/**
 * Merges an inspector's revised graph into the live workflow (docs/algorithms.md#plan-updates). Pure.
 * A subtask keeps its state only when its objective AND its set of dependencies are unchanged and no subtask it
 * depends on (directly or not) runs again: completed work keeps its output and a running subtask keeps running, even
 * when it is reassigned to another role. Anything else would keep an output computed from inputs the new plan no
 * longer gives it (no stale work). Failed subtasks that stay in the plan run again. Changed or new subtasks start
 * afresh. `discarded` names the completed or running subtasks whose work the merge discarded, and why.
 */
import { copyRole, parseWorkflow, topologicalOrder } from '../graph/index.js';
import type { LocatedIssue } from '../errors.js';
import type { Role, Subtask, Workflow, WorkflowJson } from '../graph/workflow.js';

/** A completed or running subtask whose work a plan update discarded, and why (e.g. `dependencies changed: +data`). */
export interface DiscardedWork {
  readonly id: string;
  readonly reason: string;
}

export type MergeResult =
  | { ok: true; workflow: Workflow; discarded: readonly DiscardedWork[] }
  | { ok: false; issues: readonly LocatedIssue[] };

/** `proposed` undefined means the inspector answered `{}`: keep the graph, rerun what failed. */
export function mergeUpdate(
  current: Workflow,
  proposed: Pick<WorkflowJson, 'roles' | 'subtasks'> | undefined,
): MergeResult {
  const previous = new Map(current.subtasks.map((s) => [s.id, s]));
  const merged = (proposed?.subtasks ?? current.subtasks).map((next) => mergeSubtask(previous.get(next.id), next));
  const json: WorkflowJson = {
    task: current.task,
    roles: mergeRoles(
      current.roles,
      proposed?.roles ?? [],
      merged.map((m) => m.subtask),
    ),
    subtasks: merged.map((m) => m.subtask),
  };
  const parsed = parseWorkflow(json);
  if (!parsed.ok) return { ok: false, issues: parsed.issues };
  // Validated, so the graph is acyclic and every dependency exists. In dependency order, a subtask that kept its work
  // loses it when a parent runs again (that parent's output will change), so the discard reaches every descendant.
  const reasons = new Map(merged.flatMap((m) => (m.discarded ? [[m.subtask.id, m.discarded] as const] : [])));
  const byId = new Map(parsed.workflow.subtasks.map((s) => [s.id, s]));
  const restarted = new Set(parsed.workflow.subtasks.filter((s) => s.status === 'not started').map((s) => s.id));
  const lostInput = new Set<string>();
  for (const id of topologicalOrder(parsed.workflow)) {
    const subtask = byId.get(id)!;
    if (restarted.has(id) || subtask.status === 'failed') continue;
    const parent = subtask.dependsOn.find((dependency) => restarted.has(dependency));
    if (parent === undefined) continue;
    restarted.add(id);
    lostInput.add(id);
    reasons.set(id, `depends on ${parent}, which runs again`);
  }
  const subtasks = parsed.workflow.subtasks.map((subtask) => {
    if (!lostInput.has(subtask.id)) return subtask;
    const { output: _stale, ...rest } = subtask;
    return { ...rest, status: 'not started' as const };
  });
  const discarded = subtasks.flatMap((s) => {
    const reason = reasons.get(s.id);
    return reason === undefined ? [] : [{ id: s.id, reason }];
  });
  return { ok: true, workflow: { ...parsed.workflow, subtasks }, discarded };
}

type SubtaskJson = WorkflowJson['subtasks'][number];

function mergeSubtask(
  old: Subtask | undefined,
  next: {
    readonly id: string;
    readonly objective: string;
    readonly agent: string;
    readonly dependsOn: readonly string[];
    readonly outputFormat?: string;
  },
): { subtask: SubtaskJson; discarded?: string } {
  // A revision that leaves a kept subtask's output format out keeps the one it had.
  const outputFormat = next.outputFormat ?? old?.outputFormat;
  const base = {
    id: next.id,
    objective: next.objective,
    agent: next.agent,
    dependsOn: [...next.dependsOn],
    ...(outputFormat !== undefined ? { outputFormat } : {}),
  };
  if (!old) return { subtask: { ...base, status: 'not started', attempts: 0 } };
  const restart = { subtask: { ...base, status: 'not started' as const, attempts: old.attempts } };
  const worked = old.status === 'completed' || old.status === 'in progress';
  if (!worked) return restart;
  if (old.objective !== next.objective) return { ...restart, discarded: 'objective changed' };
  const rewiring = dependencyChange(old.dependsOn, next.dependsOn);
  if (rewiring !== undefined) return { ...restart, discarded: `dependencies changed: ${rewiring}` };
  if (old.status === 'in progress') return { subtask: { ...base, status: 'in progress', attempts: old.attempts } };
  return {
    subtask: {
      ...base,
      status: 'completed',
      attempts: old.attempts,
      ...(old.output !== undefined ? { output: old.output } : {}),
    },
  };
}

/** `+a, -b` for the dependencies added and removed; undefined when the set is the same (order does not matter). */
export function dependencyChange(before: readonly string[], after: readonly string[]): string | undefined {
  const old = new Set(before);
  const now = new Set(after);
  const changes = [
    ...[...now].filter((id) => !old.has(id)).map((id) => `+${id}`),
    ...[...old].filter((id) => !now.has(id)).map((id) => `-${id}`),
  ];
  return changes.length === 0 ? undefined : changes.join(', ');
}

function mergeRoles(
  current: readonly Role[],
  proposed: NonNullable<WorkflowJson['roles']>,
  subtasks: readonly SubtaskJson[],
): NonNullable<WorkflowJson['roles']> {
  const roles = new Map<string, NonNullable<WorkflowJson['roles']>[number]>();
  for (const role of current) roles.set(role.name, copyRole(role));
  for (const role of proposed) {
    // Roles of other kinds than llm (teams, …) are the user's (a plan file's or `--team`): the inspector may use
    // them, not redefine them, and a team role it invents would name a file the user never gave, so it becomes an
    // ordinary agent.
    const existing = roles.get(role.name);
    if (existing?.kind !== undefined && existing.kind !== 'llm') continue;
    // Tools are granted by the plan or the planner, which know the run's tools: a revised prompt keeps them, and
    // the inspector grants none (it is not told which exist).
    roles.set(role.name, {
      name: role.name,
      prompt: role.prompt,
      kind: 'llm',
      ...(existing?.tools ? { tools: existing.tools } : {}),
    });
  }
  // An inspector that assigns a new role without describing it still gets a usable agent.
  for (const subtask of subtasks) {
    if (!roles.has(subtask.agent))
      roles.set(subtask.agent, { name: subtask.agent, prompt: `You are the ${subtask.agent}.`, kind: 'llm' });
  }
  return [...roles.values()];
}
