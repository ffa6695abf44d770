/**
 * An evaluation suite for distillation (`weft distill eval --suite DIR`): one folder per task,
 * `DIR/<task>/task.yaml` holding the task in words, its tools file(s), its input schema, train inputs (what the
 * execute stage solves) and held-out tests (`{ input, expected }`, what the distilled workflow is judged on), and
 * optionally a reference workflow (`reference.workflow.json` beside it unless `reference` names another file).
 * Every problem of every task is reported at once, located (file:line:column field), as one BAD_INPUT.
 * Folders without a task.yaml (shared tools, say) are not tasks.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { type LocatedIssue, WeftError } from '../errors.js';
import { closestWord } from '../text/edit-distance.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { type FieldPath, formatFieldPath, type PositionOf } from '../text/source-locator.js';
import { readInputFile } from '../tools/read-input-file.js';
import type { JsonValue } from '../tools/tool.js';
import { validateToolArgs } from '../tools/validate-args.js';
import { MAX_WORKFLOW_FILE_BYTES, parseExecutableWorkflow } from './read-workflow-file.js';
import type { ExecutableWorkflow } from './workflow.js';

export const TASK_FILE = 'task.yaml';
export const DEFAULT_REFERENCE_FILE = 'reference.workflow.json';
export const MAX_TASK_FILE_BYTES = 5_000_000;
/** Fewer tests than this is allowed, with a warning: a workflow that passes 2 cases says little. */
export const RECOMMENDED_TESTS = 5;
export const TASK_FIELDS = ['description', 'category', 'tools', 'inputs', 'train', 'tests', 'reference'] as const;

export type TaskInput = Readonly<Record<string, JsonValue>>;

export interface SuiteTestCase {
  readonly input: TaskInput;
  readonly expected: JsonValue;
}

export interface SuiteTask {
  /** The task's folder name: its key in reports and the traces' `taskKey`. */
  readonly name: string;
  /** Its task.yaml. */
  readonly file: string;
  readonly description: string;
  readonly category?: string;
  /** Tools files, resolved against the task's folder. */
  readonly tools: readonly string[];
  readonly inputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly train: readonly TaskInput[];
  readonly tests: readonly SuiteTestCase[];
  readonly referenceFile?: string;
  readonly reference?: ExecutableWorkflow;
}

export interface Suite {
  readonly dir: string;
  readonly tasks: readonly SuiteTask[];
  /** Non-fatal findings (too few tests, reference warnings), located. */
  readonly warnings: readonly LocatedIssue[];
}

export interface LoadSuiteOptions {
  /** Only these tasks (by folder name); an unknown name is BAD_INPUT with a guess. */
  readonly only?: readonly string[];
}

const taskName = /^[A-Za-z0-9_.-]{1,64}$/;
const variable = z.string().regex(/^[A-Za-z_$][\w$]{0,63}$/, 'an input name (an identifier)');
const inputObject = z.record(z.string(), z.unknown(), 'an input is an object of named values');
const taskDocument = z.strictObject({
  description: z.string().trim().min(1, 'the task in words, as the agent gets it').max(20_000),
  category: z.string().min(1).max(100).optional(),
  tools: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(20)], 'a tools file path (or a list)'),
  inputs: z.record(variable, z.record(z.string(), z.unknown(), 'a JSON Schema object')).optional(),
  train: z
    .array(inputObject, 'a list of inputs')
    .min(1, 'at least one train input')
    .max(1_000, 'at most 1,000 train inputs'),
  tests: z
    .array(z.strictObject({ input: inputObject, expected: z.unknown() }), 'a list of { input, expected }')
    .min(1, 'at least one test case')
    .max(10_000, 'at most 10,000 test cases'),
  reference: z.string().min(1).optional(),
});

/** Reads every task of the suite in `dir`; throws one BAD_INPUT listing every problem of every task. */
export async function loadSuite(dir: string, options: LoadSuiteOptions = {}): Promise<Suite> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new WeftError('BAD_INPUT', `no suite folder ${dir}`, { location: { field: '--suite' } });
  }
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, TASK_FILE)))
    .map((entry) => entry.name)
    .sort();
  if (names.length === 0) {
    throw new WeftError('BAD_INPUT', `${dir} holds no task: a suite is a folder of <task>/${TASK_FILE}`, {
      location: { file: dir, field: '--suite' },
    });
  }
  const wanted = options.only && options.only.length > 0 ? [...new Set(options.only)] : names;
  const unknown = wanted.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    const issues = unknown.map((name) => {
      const guess = closestWord(name, names);
      return { field: '--task', message: `no task "${name}" in ${dir}${guess ? ` (did you mean "${guess}"?)` : ''}` };
    });
    throw new WeftError('BAD_INPUT', issues.map((issue) => issue.message).join('; '), {
      location: { field: '--task' },
      issues,
    });
  }
  const tasks: SuiteTask[] = [];
  const errors: LocatedIssue[] = [];
  const warnings: LocatedIssue[] = [];
  for (const name of wanted) {
    const read = await readTask(dir, name);
    errors.push(...read.errors);
    warnings.push(...read.warnings);
    if (read.task) tasks.push(read.task);
  }
  if (errors.length > 0) {
    const n = errors.length;
    throw new WeftError('BAD_INPUT', `invalid suite ${dir}: ${n} ${n === 1 ? 'problem' : 'problems'}`, {
      location: { file: dir },
      issues: errors,
    });
  }
  return { dir, tasks, warnings };
}

interface TaskRead {
  readonly task?: SuiteTask;
  readonly errors: LocatedIssue[];
  readonly warnings: LocatedIssue[];
}

async function readTask(dir: string, name: string): Promise<TaskRead> {
  const file = join(dir, name, TASK_FILE);
  const errors: LocatedIssue[] = [];
  const warnings: LocatedIssue[] = [];
  const text = await readInputFile(file, 'task file', MAX_TASK_FILE_BYTES);
  const source = readStructuredSource(text, file);
  if ('issues' in source) return { errors: source.issues.map((issue) => ({ ...issue, file })), warnings };
  const at = locator(file, source.positionOf);
  if (!taskName.test(name))
    errors.push(at([], `the task's folder name "${name}" is not 1 to 64 letters, digits, _ . or -`));
  const root = source.value;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    errors.push(at([], `a task file is an object with ${TASK_FIELDS.join(', ')}`));
    return { errors, warnings };
  }
  const parsed = taskDocument.safeParse(root);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path as FieldPath;
      if (issue.code === 'unrecognized_keys') {
        const known: readonly string[] = path.length === 0 ? TASK_FIELDS : ['input', 'expected'];
        for (const key of issue.keys) {
          const guess = closestWord(key, known);
          errors.push(at([...path, key], `unknown field "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`));
        }
      } else errors.push(at(path, issue.message));
    }
  }
  const document = root as Record<string, unknown>;
  // What parsed well is checked further even when other fields have problems: all problems at once.
  const tools = toolsPaths(document.tools).map(({ path, field }) => {
    const resolved = resolve(dirname(file), path);
    if (!existsSync(resolved) || !statSync(resolved).isFile()) errors.push(at(field, `no tools file ${resolved}`));
    return resolved;
  });
  const tests = Array.isArray(document.tests) ? document.tests : [];
  tests.forEach((test, index) => {
    if (test !== null && typeof test === 'object' && !Array.isArray(test) && !Object.hasOwn(test, 'expected'))
      errors.push(at(['tests', index], 'a test case needs "expected" (the exact output)'));
  });
  if (parsed.success && parsed.data.tests.length < RECOMMENDED_TESTS) {
    warnings.push(at(['tests'], `${parsed.data.tests.length} tests; at least ${RECOMMENDED_TESTS} are recommended`));
  }
  if (parsed.success && parsed.data.inputs) {
    const schema = { type: 'object', properties: parsed.data.inputs, required: Object.keys(parsed.data.inputs) };
    const check = async (value: unknown, path: FieldPath) => {
      try {
        await validateToolArgs({ name: 'input', inputSchema: schema }, value as JsonValue);
      } catch (error) {
        const issues = (error as WeftError).issues ?? [];
        if (issues.length === 0) errors.push(at(path, (error as Error).message));
        for (const issue of issues) {
          const field = issue.field ? issue.field.split('.') : [];
          errors.push(at([...path, ...field], `${issue.message} (against "inputs")`));
        }
      }
    };
    for (const [index, input] of parsed.data.train.entries()) await check(input, ['train', index]);
    for (const [index, test] of parsed.data.tests.entries()) await check(test.input, ['tests', index, 'input']);
  }
  const reference = await readReference(file, document.reference, at, errors, warnings);
  if (!parsed.success || errors.length > 0) return { errors, warnings };
  const data = parsed.data;
  return {
    task: {
      name,
      file,
      description: data.description.trim(),
      ...(data.category !== undefined ? { category: data.category } : {}),
      tools,
      ...(data.inputs ? { inputs: data.inputs } : {}),
      train: data.train as TaskInput[],
      tests: data.tests.map((test) => ({ input: test.input as TaskInput, expected: test.expected as JsonValue })),
      ...(reference ?? {}),
    },
    errors,
    warnings,
  };
}

type At = (path: FieldPath, message: string) => LocatedIssue;

function locator(file: string, positionOf: PositionOf): At {
  return (path, message) => {
    const field = formatFieldPath(path);
    return { file, ...(positionOf(path) ?? {}), ...(field === undefined ? {} : { field }), message };
  };
}

function toolsPaths(value: unknown): { path: string; field: FieldPath }[] {
  if (typeof value === 'string' && value !== '') return [{ path: value, field: ['tools'] }];
  if (!Array.isArray(value)) return [];
  return value.flatMap((path, index) =>
    typeof path === 'string' && path !== '' ? [{ path, field: ['tools', index] as FieldPath }] : [],
  );
}

async function readReference(
  file: string,
  named: unknown,
  at: At,
  errors: LocatedIssue[],
  warnings: LocatedIssue[],
): Promise<{ referenceFile: string; reference: ExecutableWorkflow } | undefined> {
  const given = typeof named === 'string' && named !== '';
  const path = resolve(dirname(file), given ? named : DEFAULT_REFERENCE_FILE);
  if (!existsSync(path)) {
    if (given) errors.push(at(['reference'], `no reference workflow ${path}`));
    return undefined;
  }
  const text = await readInputFile(path, 'workflow file', MAX_WORKFLOW_FILE_BYTES);
  const read = await parseExecutableWorkflow(text, path);
  for (const problem of read.problems) {
    const issue: LocatedIssue = {
      file: path,
      ...(problem.line !== undefined ? { line: problem.line } : {}),
      ...(problem.column !== undefined ? { column: problem.column } : {}),
      ...(problem.path !== undefined ? { field: problem.path } : {}),
      message: `reference workflow: ${problem.message}`,
    };
    (problem.severity === 'error' ? errors : warnings).push(issue);
  }
  return read.workflow ? { referenceFile: path, reference: read.workflow } : undefined;
}
