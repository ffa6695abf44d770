/**
 * Merges an inspector's revised graph into the live workflow (docs/algorithms.md#plan-updates). Pure.
 * A subtask whose objective is unchanged keeps its state (docs/algorithms.md#plan-updates), even when it is reassigned
 * to another role: completed work keeps its output and a running subtask keeps running. Failed subtasks that stay in
 * the plan run again. Changed or new subtasks start afresh.
 */
import { copyRole, parseWorkflow } from '../graph/index.js';
import type { LocatedIssue } from '../errors.js';
import type { Role, Subtask, Workflow, WorkflowJson } from '../graph/workflow.js';

export type MergeResult = { ok: true; workflow: Workflow } | { ok: false; issues: readonly LocatedIssue[] };

/** `proposed` undefined means the inspector answered `{}`: keep the graph, rerun what failed. */
export function mergeUpdate(
  current: Workflow,
  proposed: Pick<WorkflowJson, 'roles' | 'subtasks'> | undefined,
): MergeResult {
  const previous = new Map(current.subtasks.map((s) => [s.id, s]));
  const subtasks = (proposed?.subtasks ?? current.subtasks).map((next) => mergeSubtask(previous.get(next.id), next));
  const json: WorkflowJson = {
    task: current.task,
    roles: mergeRoles(current.roles, proposed?.roles ?? [], subtasks),
    subtasks,
  };
  const parsed = parseWorkflow(json);
  return parsed.ok ? { ok: true, workflow: parsed.workflow } : { ok: false, issues: parsed.issues };
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
): SubtaskJson {
  // A revision that leaves a kept subtask's output format out keeps the one it had.
  const outputFormat = next.outputFormat ?? old?.outputFormat;
  const base = {
    id: next.id,
    objective: next.objective,
    agent: next.agent,
    dependsOn: [...next.dependsOn],
    ...(outputFormat !== undefined ? { outputFormat } : {}),
  };
  if (!old) return { ...base, status: 'not started', attempts: 0 };
  const unchanged = old.objective === next.objective;
  if (unchanged && old.status === 'completed') {
    return {
      ...base,
      status: 'completed',
      attempts: old.attempts,
      ...(old.output !== undefined ? { output: old.output } : {}),
    };
  }
  if (unchanged && old.status === 'in progress') return { ...base, status: 'in progress', attempts: old.attempts };
  return { ...base, status: 'not started', attempts: old.attempts };
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
