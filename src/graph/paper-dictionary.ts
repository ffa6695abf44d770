import { z } from 'zod';
import type { LocatedIssue } from '../errors.js';
import { indexDependencies } from './dependency-index.js';
import { copyRole, parseWorkflow, type ParseWorkflowResult } from './parse-workflow.js';
import { formatFieldPath, type FieldPath, type PathIssue } from '../text/source-locator.js';
import { independentCycles } from './topological-order.js';
import { SUBTASK_STATUSES, type Role, type SubtaskStatus, type Workflow, type WorkflowJson } from './workflow.js';

/**
 * One subtask in the Flow paper's "dictionary-based structure" (docs/algorithms.md#workflow-model), keyed by its id.
 */
export interface PaperSubtaskRecord {
  /** The subtask requirement text. */
  objective: string;
  status: SubtaskStatus;
  /** The subtask's output, or null before it has one. */
  data: string | null;
  /** Parents whose status is not "completed". Derived: the subtask is ready when it is 0 and status is "not started". */
  num_parents_not_completed: number;
  /** Ids of the subtasks that depend on this one (the outgoing edges). */
  child: string[];
  /** The role name that runs it. */
  agent: string;
}

/** `{ [id]: record }`. Plain JSON: `JSON.parse(JSON.stringify(dictionary))` gives an equal value. */
export type PaperDictionary = Record<string, PaperSubtaskRecord>;

export interface FromPaperDictionaryOptions {
  /** The workflow's roles; every agent must name one. Without them, each agent name becomes a plain LLM role. */
  readonly roles?: readonly Role[];
  /** Named in every issue. */
  readonly file?: string;
}

/**
 * The paper's dictionary form of a workflow. Keys follow the subtask order; `data` is the output or null;
 * `child` lists dependents in subtask order; `num_parents_not_completed` counts the parents that are not
 * completed. The task, the roles' prompts and the attempt counts have no place in the paper's structure and
 * are left out. Throws PLAN_INVALID on an unknown dependency or a duplicate id.
 */
export function toPaperDictionary(workflow: Pick<Workflow, 'subtasks'>): PaperDictionary {
  const index = indexDependencies(workflow);
  const { subtasks } = workflow;
  // fromEntries defines own properties, so even an id like "__proto__" stays a plain key.
  return Object.fromEntries(
    subtasks.map((subtask, position): [string, PaperSubtaskRecord] => [
      subtask.id,
      {
        objective: subtask.objective,
        status: subtask.status,
        data: subtask.output ?? null,
        num_parents_not_completed: (index.parents[position] ?? []).filter(
          (parent) => subtasks[parent]?.status !== 'completed',
        ).length,
        child: (index.children[position] ?? []).map((child) => index.ids[child] ?? ''),
        agent: subtask.agent,
      },
    ]),
  );
}

// Whitespace-only text is as useless to an agent as empty text (the plan-file rule).
const text = () => z.string().refine((value) => value.trim().length > 0, { error: 'must not be empty' });

/**
 * Lenient where the paper's own prompt is (its example records have no objective field, but Weft's do, so
 * `objective` is required): a missing status, data, count or child list takes its "fresh subtask" value.
 */
const recordSchema = z.strictObject({
  objective: text(),
  status: z
    .enum(SUBTASK_STATUSES, { error: `must be one of ${SUBTASK_STATUSES.map((status) => `"${status}"`).join(', ')}` })
    .default('not started'),
  data: z.string({ error: 'must be a string or null' }).nullable().default(null),
  num_parents_not_completed: z
    .number()
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must not be negative' })
    .optional(),
  child: z.array(z.string()).default([]),
  agent: text(),
});

const RECORD_FIELDS = Object.keys(recordSchema.shape);

/**
 * Reads the paper's dictionary (typically straight from `JSON.parse`) back into a validated, immutable
 * workflow, or returns every problem found, each with its field path (`t1.child[0]`).
 *
 * - Subtasks keep the dictionary's key order (JavaScript lists integer-like keys such as "2" first, in
 *   numeric order, whatever the JSON text said).
 * - Each subtask's `dependsOn` lists the subtasks whose `child` names it, in key order.
 * - Issues: malformed records, unknown fields, an unknown or self-referencing child, a child listed twice,
 *   cycles, and an agent that is not among `options.roles` when roles are given.
 * - `num_parents_not_completed` is NOT checked against the statuses: it is derived data (the executor
 *   recomputes it whenever it loads a plan), so an inconsistent count — a stale LLM answer, say — is ignored
 *   and recomputed by `toPaperDictionary`, not reported as an error.
 * - Attempts start at 0: the paper's structure does not record them.
 */
export function fromPaperDictionary(
  dictionary: unknown,
  task: string,
  options: FromPaperDictionaryOptions = {},
): ParseWorkflowResult {
  const { file } = options;
  const located = (issues: readonly PathIssue[]): ParseWorkflowResult => ({
    ok: false,
    issues: issues.map(({ path, message }): LocatedIssue => {
      const field = formatFieldPath(path);
      return { ...(file === undefined ? {} : { file }), ...(field === undefined ? {} : { field }), message };
    }),
  });

  if (typeof dictionary !== 'object' || dictionary === null || Array.isArray(dictionary)) {
    return located([
      { path: [], message: `expected an object of subtasks keyed by id, got ${describeValue(dictionary)}` },
    ]);
  }
  const entries = Object.entries(dictionary as Record<string, unknown>);
  if (entries.length === 0) return located([{ path: [], message: 'must list at least one subtask' }]);

  const issues: PathIssue[] = [];
  const records = new Map<string, z.output<typeof recordSchema>>();
  for (const [id, raw] of entries) {
    if (id.trim() === '') issues.push({ path: [id], message: 'a subtask id must not be empty' });
    const parsed = recordSchema.safeParse(raw);
    if (parsed.success) records.set(id, parsed.data);
    else issues.push(...parsed.error.issues.flatMap((issue) => describeIssue(issue, id, raw)));
  }

  // Edges from the child lists; an edge is dropped (and reported) when it names an unknown or the same subtask.
  const ids = entries.map(([id]) => id);
  const known = new Set(ids);
  const edges: [string, string][] = [];
  for (const [id, record] of records) {
    const seen = new Set<string>();
    record.child.forEach((child, position) => {
      const path = [id, 'child', position];
      if (child === id) issues.push({ path, message: `subtask "${id}" lists itself as a child` });
      else if (!known.has(child)) issues.push({ path, message: `unknown child "${child}"` });
      else if (seen.has(child)) issues.push({ path, message: `child "${child}" is listed twice` });
      else edges.push([id, child]);
      seen.add(child);
    });
  }
  issues.push(...cycleIssues(ids, edges, records));

  if (options.roles) {
    const roleNames = new Set(options.roles.map((role) => role.name));
    for (const [id, record] of records) {
      if (!roleNames.has(record.agent)) {
        const listing = roleNames.size > 0 ? `roles are: ${[...roleNames].join(', ')}` : 'no roles are given';
        issues.push({ path: [id, 'agent'], message: `unknown role "${record.agent}"; ${listing}` });
      }
    }
  }
  if (issues.length > 0) return located(issues);

  const parentsOf = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const [parent, child] of edges) parentsOf.get(child)?.push(parent);
  const json: WorkflowJson = {
    task,
    ...(options.roles ? { roles: options.roles.map(copyRole) } : {}),
    subtasks: ids.map((id) => {
      const record = records.get(id)!;
      return {
        id,
        objective: record.objective,
        agent: record.agent,
        dependsOn: parentsOf.get(id) ?? [],
        status: record.status,
        ...(record.data === null ? {} : { output: record.data }),
        attempts: 0,
      };
    }),
  };
  // The plan-file validator does the rest (the task text, the roles themselves) and freezes the result.
  return parseWorkflow(json, file === undefined ? {} : { file });
}

function describeIssue(issue: z.core.$ZodIssue, id: string, raw: unknown): PathIssue[] {
  const path: FieldPath = [
    id,
    ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
  ];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: [...path, key],
      message: `unknown field "${key}"; expected one of: ${RECORD_FIELDS.join(', ')}`,
    }));
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0) {
    return [{ path, message: `expected a subtask record (an object), got ${describeValue(raw)}` }];
  }
  if (
    issue.code === 'invalid_type' &&
    issue.path.length === 1 &&
    (typeof raw !== 'object' || raw === null || !(String(issue.path[0]) in raw))
  ) {
    return [{ path, message: `missing required field "${String(issue.path[0])}"` }];
  }
  return [{ path, message: issue.message ?? 'invalid value' }];
}

/** Independent cycles, as in plan files: each located where it closes, at the last node's child entry. */
function cycleIssues(
  ids: readonly string[],
  edges: readonly [string, string][],
  records: ReadonlyMap<string, { child: string[] }>,
): PathIssue[] {
  return independentCycles(ids, edges).map((cycle) => {
    const first = cycle[0] ?? '';
    const last = cycle[cycle.length - 1] ?? '';
    return {
      path: [last, 'child', records.get(last)?.child.indexOf(first) ?? 0],
      message: `cycle: ${[...cycle, first].join(' -> ')}`,
    };
  });
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
