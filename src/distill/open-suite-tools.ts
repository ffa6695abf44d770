/**
 * The business tools of a suite's tasks: each tools file opened once (tasks share them), before any model call, so
 * a bad file or an unset `${env:BUSINESS_API_URL}` stops the evaluation at the start with the file's located
 * problems. A task's tools are the union of its files (a name twice is BAD_INPUT, as in one file).
 */
import { WeftError } from '../errors.js';
import type { Tool, ToolSet } from '../tools/tool.js';
import { loadToolsFile } from '../tools/tools-file.js';
import type { SuiteTask } from './load-suite.js';
import { workflowToolsOpener } from './open-workflow-tools.js';
import type { WorkflowToolLimits } from './workflow-tool.js';

export interface SuiteTools {
  readonly toolsFor: (task: SuiteTask) => readonly Tool[];
  close(): Promise<void>;
}

export async function openSuiteTools(
  tasks: readonly SuiteTask[],
  options: {
    readonly env?: Readonly<Record<string, string | undefined>>;
    readonly signal?: AbortSignal;
    /** The hard limits of its workflow tools' runs (`weft distill eval --time-limit` and so on). */
    readonly workflowLimits?: WorkflowToolLimits;
  } = {},
): Promise<SuiteTools> {
  const { workflowLimits, ...loadOptions } = options;
  const openWorkflows = workflowToolsOpener(workflowLimits);
  const files = [...new Set(tasks.flatMap((task) => task.tools))];
  const opened = new Map<string, ToolSet>();
  const close = async () => {
    await Promise.allSettled([...opened.values()].map((set) => set.close()));
  };
  const failures: WeftError[] = [];
  for (const file of files) {
    try {
      opened.set(file, await loadToolsFile(file, { ...loadOptions, openWorkflows }));
    } catch (error) {
      if (!(error instanceof WeftError)) {
        await close();
        throw error;
      }
      failures.push(error);
    }
  }
  if (failures.length > 0) {
    await close();
    // Every file's problems at once, as for one file; an unset variable once per file, named in the headline.
    const unset = new Set<string>();
    const seen = new Set<string>();
    const issues = failures
      .flatMap((error) =>
        error.issues.length > 0 ? error.issues : [{ ...(error.location ?? {}), message: error.message }],
      )
      .filter((issue) => {
        const variable = /environment variable (\S+) is not set/.exec(issue.message)?.[1];
        if (variable === undefined) return true;
        unset.add(variable);
        const key = `${issue.file ?? ''}\0${variable}`;
        return !seen.has(key) && seen.add(key) !== undefined;
      });
    const headline =
      unset.size > 0
        ? `the suite's tools need ${[...unset].join(', ')}, which ${unset.size === 1 ? 'is' : 'are'} not set${unset.has('BUSINESS_API_URL') ? ' (start the business API with `npm run example:api` and export BUSINESS_API_URL, or run `npm run example:distill-suite`)' : ''}`
        : `the suite's tools: ${failures.map((error) => error.message).join('; ')}`;
    throw new WeftError('BAD_INPUT', headline, { issues, location: { field: 'tools' } });
  }
  const perTask = new Map<string, Tool[]>();
  const clashes: string[] = [];
  for (const task of tasks) {
    const byName = new Map<string, Tool>();
    for (const file of task.tools) {
      for (const tool of opened.get(file)?.tools ?? []) {
        const earlier = byName.get(tool.name);
        if (earlier && earlier !== tool)
          clashes.push(`${task.file}: tool "${tool.name}" is defined twice: ${earlier.source} and ${tool.source}`);
        byName.set(tool.name, tool);
      }
    }
    perTask.set(task.name, [...byName.values()]);
  }
  if (clashes.length > 0) {
    await close();
    throw new WeftError('BAD_INPUT', clashes.join('; '), {
      issues: clashes.map((message) => ({ message, field: 'tools' })),
      location: { field: 'tools' },
    });
  }
  return { toolsFor: (task) => perTask.get(task.name) ?? [], close };
}
