import { formatFieldPath, type FieldPath, type PathIssue, type PositionOf } from '../text/source-locator.js';
import { independentCycles } from './topological-order.js';

/**
 * The graph rules of a workflow: unique ids, known dependencies, no self-dependency, no cycle, known
 * roles, team roles name their team. Reads the raw input leniently (skipping whatever has the wrong
 * shape, which the schema reports) so that one pass reports every problem at once.
 */
export function checkWorkflowGraph(root: unknown, positionOf: PositionOf): PathIssue[] {
  const issues: PathIssue[] = [];
  const subtasks = isRecord(root) && Array.isArray(root.subtasks) ? root.subtasks : [];
  const where = (path: FieldPath): string => {
    const position = positionOf(path);
    return `${formatFieldPath(path) ?? 'the root'}${position ? ` (line ${position.line})` : ''}`;
  };

  // Ids: the first use of an id is its owner; later uses are duplicates.
  const firstIndexOf = new Map<string, number>();
  subtasks.forEach((subtask, index) => {
    const id = idOf(subtask);
    if (id === undefined) return;
    const first = firstIndexOf.get(id);
    if (first === undefined) firstIndexOf.set(id, index);
    else
      issues.push({
        path: ['subtasks', index, 'id'],
        message: `duplicate id "${id}", also used at ${where(['subtasks', first, 'id'])}`,
      });
  });

  // Dependencies: each becomes an edge unless it is unknown, a self-dependency or a repeat.
  const edges: [string, string][] = [];
  subtasks.forEach((subtask, index) => {
    if (!isRecord(subtask) || !Array.isArray(subtask.dependsOn)) return;
    const id = idOf(subtask);
    const seen = new Set<string>();
    subtask.dependsOn.forEach((dependency: unknown, position) => {
      if (typeof dependency !== 'string') return;
      const path = ['subtasks', index, 'dependsOn', position];
      if (dependency === id) issues.push({ path, message: `subtask "${id}" depends on itself` });
      else if (!firstIndexOf.has(dependency)) issues.push({ path, message: `unknown dependency "${dependency}"` });
      else if (seen.has(dependency)) issues.push({ path, message: `dependency "${dependency}" is listed twice` });
      else if (id !== undefined) edges.push([dependency, id]);
      seen.add(dependency);
    });
  });
  issues.push(...cycleIssues([...firstIndexOf.keys()], edges, subtasks));

  // Roles: only checked against when the plan declares them; otherwise they are derived from agents.
  if (isRecord(root) && Array.isArray(root.roles)) {
    const roleNames = new Map<string, number>();
    root.roles.forEach((role: unknown, index) => {
      if (!isRecord(role)) return;
      if (typeof role.name === 'string') {
        const first = roleNames.get(role.name);
        if (first === undefined) roleNames.set(role.name, index);
        else
          issues.push({
            path: ['roles', index, 'name'],
            message: `duplicate role "${role.name}", also declared at ${where(['roles', first, 'name'])}`,
          });
      }
      if (role.kind === 'team' && role.team === undefined) {
        issues.push({ path: ['roles', index, 'team'], message: 'a role of kind "team" needs a "team" file' });
      } else if (role.kind !== 'team' && role.team !== undefined) {
        issues.push({ path: ['roles', index, 'team'], message: '"team" applies only to roles of kind "team"' });
      }
      if (role.kind !== undefined && role.kind !== 'llm' && role.tools !== undefined) {
        issues.push({ path: ['roles', index, 'tools'], message: '"tools" applies only to roles of kind "llm"' });
      }
      if (Array.isArray(role.tools)) {
        const seenTools = new Set<unknown>();
        role.tools.forEach((tool: unknown, toolIndex) => {
          if (seenTools.has(tool))
            issues.push({
              path: ['roles', index, 'tools', toolIndex],
              message: `tool "${String(tool)}" is listed twice`,
            });
          seenTools.add(tool);
        });
      }
      if (role.kind !== 'team' && role.taskType !== undefined) {
        issues.push({
          path: ['roles', index, 'taskType'],
          message: '"taskType" applies only to roles of kind "team" (it keys their importance scores)',
        });
      }
    });
    const known = [...roleNames.keys()];
    subtasks.forEach((subtask, index) => {
      if (!isRecord(subtask) || typeof subtask.agent !== 'string' || subtask.agent.trim() === '') return;
      if (roleNames.has(subtask.agent)) return;
      const listing = known.length > 0 ? `roles are: ${known.join(', ')}` : 'no roles are declared';
      issues.push({ path: ['subtasks', index, 'agent'], message: `unknown role "${subtask.agent}"; ${listing}` });
    });
  }
  return issues;
}

/** Each independent cycle, located where it closes: the first node's dependency on the last. */
function cycleIssues(ids: string[], edges: [string, string][], subtasks: unknown[]): PathIssue[] {
  return independentCycles(ids, edges).map((cycle) => {
    const first = cycle[0] ?? '';
    const last = cycle[cycle.length - 1] ?? '';
    const index = subtasks.findIndex(
      (subtask) =>
        idOf(subtask) === first &&
        isRecord(subtask) &&
        Array.isArray(subtask.dependsOn) &&
        subtask.dependsOn.includes(last),
    );
    const position = index < 0 ? -1 : (subtasks[index] as { dependsOn: unknown[] }).dependsOn.indexOf(last);
    return {
      path: index < 0 ? ['subtasks'] : ['subtasks', index, 'dependsOn', position],
      message: `cycle: ${[...cycle, first].join(' -> ')}`,
    };
  });
}

function idOf(subtask: unknown): string | undefined {
  return isRecord(subtask) && typeof subtask.id === 'string' && subtask.id.trim() !== '' ? subtask.id : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
