/**
 * Reads an executable workflow document (JSON or YAML) into an ExecutableWorkflow, or every problem at once, each
 * located by file, line, column and field (zod for the shape; checkWorkflow for the structure). Files larger than
 * MAX_WORKFLOW_FILE_BYTES, folders and pipes are refused before reading.
 */
import { z } from 'zod';
import { WeftError } from '../errors.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { readInputFile } from '../tools/read-input-file.js';
import { type FieldPath, formatFieldPath } from '../text/source-locator.js';
import { type CheckWorkflowOptions, checkWorkflow } from './check-workflow.js';
import type { ExecutableWorkflow, WorkflowProblem } from './workflow.js';

export const MAX_WORKFLOW_FILE_BYTES = 5_000_000;

const id = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'an id of 1 to 64 letters, digits, _ . or -');
const variable = z.string().regex(/^[A-Za-z_$][\w$]{0,63}$/, 'a variable name (an identifier)');
const record = z.record(z.string(), z.unknown());
const node = z.discriminatedUnion('kind', [
  z.strictObject({ id, kind: z.literal('start') }),
  z.strictObject({ id, kind: z.literal('end'), output: z.unknown().optional() }),
  z.strictObject({
    id,
    kind: z.literal('tool'),
    tool: z.string().min(1),
    args: record.optional(),
    out: variable.optional(),
  }),
  z.strictObject({ id, kind: z.literal('condition'), expr: z.string().min(1) }),
  z.strictObject({ id, kind: z.literal('set'), values: z.record(variable, z.unknown()) }),
  z.strictObject({
    id,
    kind: z.literal('forEach'),
    items: z.string().min(1),
    as: variable.optional(),
    body: id,
    result: z.unknown().optional(),
    out: variable.optional(),
  }),
]);
const edge = z.strictObject({
  from: id,
  to: id,
  when: z.union([z.boolean(), z.string(), z.number(), z.null()]).optional(),
  default: z.boolean().optional(),
});
const document = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().optional(),
  inputs: z.record(variable, record).optional(),
  nodes: z.array(node).min(1).max(10_000),
  edges: z.array(edge).max(50_000),
});

export interface ReadWorkflowResult {
  readonly workflow?: ExecutableWorkflow;
  readonly problems: readonly WorkflowProblem[];
}

/** Parses and checks a workflow's text; `workflow` is set when no problem is an error. */
export async function parseExecutableWorkflow(
  text: string,
  file: string | undefined,
  options: CheckWorkflowOptions = {},
): Promise<ReadWorkflowResult> {
  const source = readStructuredSource(text, file);
  if ('issues' in source) {
    return { problems: source.issues.map((issue) => ({ severity: 'error' as const, ...issue })) };
  }
  const located = (
    path: FieldPath,
    problem: Omit<WorkflowProblem, 'path' | 'file' | 'line' | 'column'>,
  ): WorkflowProblem => {
    const position = source.positionOf(path);
    const field = formatFieldPath(path);
    return { ...problem, ...(file ? { file } : {}), ...(position ?? {}), ...(field ? { path: field } : {}) };
  };
  const parsed = document.safeParse(source.value);
  const protoProblems = protoKeyPaths(source.value).map((path) =>
    located(path, {
      severity: 'error',
      message: '"__proto__" cannot be a name here (it would be dropped without a word); rename it',
    }),
  );
  if (!parsed.success || protoProblems.length > 0) {
    return {
      problems: [
        ...protoProblems,
        ...(parsed.success
          ? []
          : parsed.error.issues.map((issue) =>
              located(issue.path as FieldPath, { severity: 'error', message: issue.message }),
            )),
      ],
    };
  }
  const workflow = parsed.data as ExecutableWorkflow;
  const problems = (await checkWorkflow(workflow, options)).map((problem) =>
    located(pathOf(problem.path), {
      severity: problem.severity,
      message: problem.message,
      ...(problem.node ? { node: problem.node } : {}),
    }),
  );
  return problems.some((problem) => problem.severity === 'error') ? { problems } : { workflow, problems };
}

/** Reads, parses and checks a workflow file; errors become one BAD_INPUT WeftError with every problem located. */
export async function loadWorkflowFile(
  path: string,
  options: CheckWorkflowOptions = {},
): Promise<ReadWorkflowResult & { workflow: ExecutableWorkflow }> {
  const text = await readInputFile(path, 'workflow file', MAX_WORKFLOW_FILE_BYTES);
  const result = await parseExecutableWorkflow(text, path, options);
  if (!result.workflow) {
    const issues = result.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => ({
        file: path,
        ...(problem.line !== undefined ? { line: problem.line } : {}),
        ...(problem.column !== undefined ? { column: problem.column } : {}),
        ...(problem.path !== undefined ? { field: problem.path } : {}),
        message: problem.message,
      }));
    throw new WeftError('BAD_INPUT', `invalid workflow: ${issues.length} problem${issues.length === 1 ? '' : 's'}`, {
      location: { file: path },
      issues,
    });
  }
  return result as ReadWorkflowResult & { workflow: ExecutableWorkflow };
}

/**
 * Where the document has a key `__proto__` in a map that zod reads as a record (inputs and their schemas, a tool's
 * args, a set's values): zod leaves such a key out of what it returns, so an input, argument or variable would
 * vanish silently. (Inside literal values it is kept, as a plain key.)
 */
function protoKeyPaths(value: unknown): FieldPath[] {
  const paths: FieldPath[] = [];
  const isMap = (item: unknown): item is Record<string, unknown> =>
    typeof item === 'object' && item !== null && !Array.isArray(item);
  const check = (map: unknown, path: FieldPath) => {
    if (isMap(map) && Object.hasOwn(map, '__proto__')) paths.push([...path, '__proto__']);
  };
  if (!isMap(value)) return paths;
  const inputs = value['inputs'];
  check(inputs, ['inputs']);
  if (isMap(inputs)) for (const [name, schema] of Object.entries(inputs)) check(schema, ['inputs', name]);
  const nodes = value['nodes'];
  if (Array.isArray(nodes))
    for (const [index, node] of nodes.entries()) {
      if (!isMap(node)) continue;
      check(node['args'], ['nodes', index, 'args']);
      check(node['values'], ['nodes', index, 'values']);
    }
  return paths;
}

/** `nodes[3].args.a` → ['nodes', 3, 'args', 'a'] (the checker's paths back into field paths). */
function pathOf(text: string | undefined): FieldPath {
  if (!text) return [];
  const path: (string | number)[] = [];
  for (const match of text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) path.push(Number(match[2]));
    else if (match[1] !== undefined) path.push(match[1]);
  }
  return path;
}

/** Every problem of a workflow file, for `weft workflow check` (reading problems included, never thrown). */
export async function checkWorkflowFile(path: string, options: CheckWorkflowOptions = {}): Promise<ReadWorkflowResult> {
  const text = await readInputFile(path, 'workflow file', MAX_WORKFLOW_FILE_BYTES);
  return parseExecutableWorkflow(text, path, options);
}
