import type { z } from 'zod';
import { WeftError, type LocatedIssue } from '../errors.js';
import { describeTypeMismatch, valueAt } from '../text/describe-value.js';
import { formatFieldPath, type FieldPath, type PathIssue, type PositionOf } from '../text/source-locator.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { checkWorkflowGraph } from './check-workflow-graph.js';
import { ALLOWED_FIELDS, workflowSchema, type WorkflowInput } from './workflow-schema.js';
import type { Role, Subtask, Workflow, WorkflowJson } from './workflow.js';

export type ParseWorkflowResult =
  | { readonly ok: true; readonly workflow: Workflow }
  | { readonly ok: false; readonly issues: readonly LocatedIssue[] };

export interface ParseWorkflowOptions {
  /** Named in every issue. Its extension (`.json`, `.yaml`, `.yml`) also picks the syntax. */
  readonly file?: string;
  /**
   * Top-level keys another reader owns and checks, left out here (the CLI's plans may carry a tools section:
   * `tools` and `allowHosts`). Default none: any key the workflow does not know is an error.
   */
  readonly sections?: readonly string[];
}

/**
 * Validates a plan and returns an immutable workflow, or every problem found, each located by file,
 * line, column and field path. A string is read as JSON (when the file is `.json` or the text starts
 * with `{` or `[`) or YAML; any other value is validated as already-parsed data (no lines then).
 */
export function parseWorkflow(input: string | unknown, options: ParseWorkflowOptions = {}): ParseWorkflowResult {
  const { file } = options;
  if (typeof input !== 'string') return validate(withoutSections(input, options.sections), () => undefined, file);
  const source = readStructuredSource(input, file);
  if ('issues' in source) return { ok: false, issues: source.issues };
  return validate(withoutSections(source.value, options.sections), source.positionOf, file);
}

function withoutSections(value: unknown, sections: readonly string[] | undefined): unknown {
  if (!sections || sections.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) {
    return value;
  }
  return Object.fromEntries(Object.entries(value).filter(([key]) => !sections.includes(key)));
}

/** For callers holding a plan object: the workflow, or a PLAN_INVALID error carrying the issues. */
export function workflowFromJson(json: WorkflowJson): Workflow {
  const result = parseWorkflow(json);
  if (result.ok) return result.workflow;
  const count = result.issues.length;
  throw new WeftError('PLAN_INVALID', `invalid workflow: ${count} ${count === 1 ? 'issue' : 'issues'}`, {
    issues: result.issues,
  });
}

/** The plan-file form of a workflow, with every field written out; `parseWorkflow` reads it back unchanged. */
export function toWorkflowJson(workflow: Workflow): WorkflowJson {
  return {
    task: workflow.task,
    roles: workflow.roles.map(copyRole),
    subtasks: workflow.subtasks.map(copySubtask),
  };
}

/** A new role with every field written out, and `team` and `taskType` only when set. */
export function copyRole(role: Role): Role {
  return {
    name: role.name,
    prompt: role.prompt,
    kind: role.kind,
    ...(role.team === undefined ? {} : { team: role.team }),
    ...(role.taskType === undefined ? {} : { taskType: role.taskType }),
    ...(role.tools === undefined ? {} : { tools: [...role.tools] }),
  };
}

/** A new subtask with every field written out, `output` only when set, and its own `dependsOn` array. */
function copySubtask(subtask: Subtask): Subtask & { dependsOn: string[] } {
  return {
    id: subtask.id,
    objective: subtask.objective,
    agent: subtask.agent,
    dependsOn: [...subtask.dependsOn],
    status: subtask.status,
    ...(subtask.output === undefined ? {} : { output: subtask.output }),
    attempts: subtask.attempts,
    ...(subtask.outputFormat === undefined ? {} : { outputFormat: subtask.outputFormat }),
  };
}

function validate(value: unknown, positionOf: PositionOf, file: string | undefined): ParseWorkflowResult {
  const parsed = workflowSchema.safeParse(value);
  const pathIssues = [
    ...(parsed.success ? [] : parsed.error.issues.flatMap((issue) => describeSchemaIssue(issue, value))),
    ...checkWorkflowGraph(value, positionOf),
  ];
  if (parsed.success && pathIssues.length === 0) return { ok: true, workflow: buildWorkflow(parsed.data) };

  const issues = pathIssues.map(({ path, message }): LocatedIssue => {
    const position = positionOf(path);
    const field = formatFieldPath(path);
    return {
      ...(file === undefined ? {} : { file }),
      ...(position ?? {}),
      ...(field === undefined ? {} : { field }),
      message,
    };
  });
  // Source order reads best; issues without a line keep the order they were found in.
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { ok: false, issues };
}

function describeSchemaIssue(issue: z.core.$ZodIssue, root: unknown): PathIssue[] {
  const path: FieldPath = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedFieldsAt(path);
    return issue.keys.map((key) => ({
      path: [...path, key],
      message: `unknown field "${key}"${allowed ? `; expected one of: ${allowed.join(', ')}` : ''}`,
    }));
  }
  // zod reports a fractional number as an `int` type error; the schema's own message says it better.
  if (issue.code === 'invalid_type' && issue.expected !== 'int') {
    const found = valueAt(root, path);
    if (path.length === 0 && (found === undefined || found === null)) return [{ path, message: 'the plan is empty' }];
    return [{ path, message: describeTypeMismatch(found, path, issue.expected) }];
  }
  return [{ path, message: issue.message }];
}

function allowedFieldsAt(path: FieldPath): readonly string[] | undefined {
  if (path.length === 0) return ALLOWED_FIELDS.workflow;
  if (path.length === 2 && path[0] === 'subtasks') return ALLOWED_FIELDS.subtask;
  if (path.length === 2 && path[0] === 'roles') return ALLOWED_FIELDS.role;
  return undefined;
}

function buildWorkflow(input: WorkflowInput): Workflow {
  const roles: Role[] = input.roles
    ? input.roles.map(copyRole)
    : // Without declared roles, each agent name used is a plain LLM role, in order of first use.
      [...new Set(input.subtasks.map((subtask) => subtask.agent))].map((name) => ({
        name,
        prompt: `You are the ${name}.`,
        kind: 'llm' as const,
      }));
  return deepFreeze({ task: input.task, roles, subtasks: input.subtasks.map(copySubtask) });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
