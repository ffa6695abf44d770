/**
 * The folder `weft distill eval --out DIR` keeps, so that a task that failed can be inspected and its stages run
 * again by hand:
 *
 *     DIR/report.json                           the --json report, each task run with its `files`
 *     DIR/tasks/<task>/<variant>/summary.json   the task run's numbers, its task file, tools and reference
 *     DIR/tasks/<task>/<variant>/workflow.json  the distilled workflow (`workflow.partial.json` when unfinished)
 *     DIR/tasks/<task>/<variant>/traces.jsonl   every trace of the execute stage, one a line (or the baseline's)
 *     DIR/tasks/<task>/<variant>/selected-traces.jsonl   the traces the summarizer got (ES variants)
 *     DIR/tasks/<task>/<variant>/tests.jsonl    the held-out tests as `{ id, input, expected }` lines
 *     DIR/tasks/<task>/<variant>/results.jsonl  per test: `{ id, input, expected, ok, actual?, error? }`
 *
 * The traces files are what `weft distill --traces FILE` reads, the workflow and tests what `weft exec FILE --tools
 * T --inputs tests.jsonl` runs. The folder must be new or empty (nothing of the user's is overwritten, and no file
 * of an earlier run is left to be mistaken for this one's); every file is written by an atomic replace, flushed,
 * as soon as its task run ends, so a run stopped later keeps what it finished.
 */
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFile, type TaskRun, WeftError } from '../../internal.js';

export const EVAL_REPORT_FILE = 'report.json';
export const TASKS_FOLDER = 'tasks';

/** The files of one task run, relative to DIR (forward slashes, as the dashboard links them). */
export interface TaskRunFiles {
  readonly summary: string;
  readonly workflow?: string;
  readonly traces: string;
  readonly selectedTraces?: string;
  readonly tests: string;
  readonly results: string;
}

/** Makes DIR (and its parents) when missing; BAD_INPUT (field `--out`) when it is a file or a folder with content. */
export async function prepareEvalFolder(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (info && !info.isDirectory() && !info.isSymbolicLink())
    throw new WeftError('BAD_INPUT', `--out ${dir} is not a folder`, { location: { field: '--out' } });
  if (info) {
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch (error) {
      throw new WeftError('BAD_INPUT', `--out ${dir}: cannot read it: ${(error as NodeJS.ErrnoException).code}`, {
        location: { field: '--out' },
      });
    }
    if (entries.length > 0)
      throw new WeftError(
        'BAD_INPUT',
        `--out ${dir} is not empty (${entries.length} entries); give a new or empty folder, so that nothing in it is overwritten`,
        { location: { field: '--out' } },
      );
  }
  await mkdir(join(dir, TASKS_FOLDER), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new WeftError('BAD_INPUT', `--out ${dir}: cannot create it: ${error.code ?? error.message}`, {
      location: { field: '--out' },
    });
  });
}

/** Writes one task run's files; returns their paths relative to DIR. A failed write is BAD_INPUT naming `--out`. */
export function writeTaskRun(dir: string, run: TaskRun): Promise<TaskRunFiles> {
  return named(dir, writeFiles(dir, run));
}

async function writeFiles(dir: string, run: TaskRun): Promise<TaskRunFiles> {
  const { task, evaluation } = run;
  const relative = `${TASKS_FOLDER}/${task.name}/${evaluation.variant}`;
  const folder = join(dir, TASKS_FOLDER, task.name, evaluation.variant);
  await mkdir(folder, { recursive: true });
  const finished = evaluation.finished;
  const workflowName = finished ? 'workflow.json' : 'workflow.partial.json';
  const files: TaskRunFiles = {
    summary: `${relative}/summary.json`,
    ...(run.workflow ? { workflow: `${relative}/${workflowName}` } : {}),
    traces: `${relative}/traces.jsonl`,
    ...(run.selected ? { selectedTraces: `${relative}/selected-traces.jsonl` } : {}),
    tests: `${relative}/tests.jsonl`,
    results: `${relative}/results.jsonl`,
  };
  const byIndex = new Map(evaluation.cases.map((result) => [result.index, result]));
  // Why tests have no result: the task's stage threw, or its graph is invalid (not run), or the run was cancelled.
  const notRun =
    evaluation.error !== undefined
      ? `not run: the task failed: ${evaluation.error}`
      : !evaluation.graphValid
        ? 'not run: the workflow is invalid'
        : 'not run: the evaluation was cancelled';
  const results = task.tests.map((test, index) => {
    const result = byIndex.get(index);
    return {
      id: index,
      input: test.input,
      expected: test.expected,
      ok: result?.ok ?? false,
      ...(result && 'output' in result ? { actual: result.output ?? null } : {}),
      ...(result?.error !== undefined ? { error: result.error } : result ? {} : { error: notRun }),
    };
  });
  const write = (name: string, content: string) => replaceFile(folder, name, content, { sync: true });
  if (run.workflow) await write(workflowName, `${JSON.stringify(run.workflow, null, 2)}\n`);
  await write('traces.jsonl', jsonLines(run.traces));
  if (run.selected) await write('selected-traces.jsonl', jsonLines(run.selected));
  await write('tests.jsonl', jsonLines(task.tests.map((test, index) => ({ id: index, ...test }))));
  await write('results.jsonl', jsonLines(results));
  await write(
    'summary.json',
    `${JSON.stringify(
      {
        ...evaluation,
        taskFile: task.file,
        tools: task.tools,
        ...(task.referenceFile !== undefined ? { reference: task.referenceFile } : {}),
        files,
      },
      null,
      2,
    )}\n`,
  );
  return files;
}

/** Writes DIR/report.json. */
export function writeEvalReport(dir: string, report: unknown): Promise<void> {
  return named(dir, replaceFile(dir, EVAL_REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`, { sync: true }));
}

/** A write that failed (a full disk, a folder removed meanwhile), said as a problem of `--out`. */
async function named<T>(dir: string, writing: Promise<T>): Promise<T> {
  try {
    return await writing;
  } catch (error) {
    if (error instanceof WeftError) throw error;
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new WeftError('BAD_INPUT', `cannot write into --out ${dir}: ${reason}`, {
      location: { field: '--out' },
      cause: error,
    });
  }
}

function jsonLines(values: readonly unknown[]): string {
  return values.map((value) => `${JSON.stringify(value)}\n`).join('');
}
