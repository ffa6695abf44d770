/**
 * Opens a tools section's `workflow` entries (the WorkflowToolsOpener the library's loadToolsFile gives
 * openToolSources): reads and checks each workflow file, binds it to the tools it calls, and makes it a tool
 * (workflow-tool.ts). Every problem is located and reported at once:
 * - the workflow file cannot be read, or does not check (its own problems, located in it);
 * - the entry gives no `name` and the workflow's name makes none;
 * - a `secretArgs` name that is not one of the workflow's inputs;
 * - a tool the workflow calls that its tools do not give (with a guess);
 * - a call cycle: a workflow tool that calls itself, directly or through the section's other workflow tools;
 * - a `tools:` file that leads back to a file being loaded (which would load for ever), or has problems itself;
 * - `idempotent: true` on a workflow that calls a tool that is not idempotent.
 *
 * Decisions: a workflow calls the other tools of its own section, unless the entry names a tools file in `tools:`
 * (then only that file's tools, which the agent does not see). Without `idempotent`, a workflow tool is idempotent
 * exactly when every tool it calls is: then a retry or a resumed run may run it again safely.
 */
import { isWeftError, type LocatedIssue, WeftError } from '../errors.js';
import { closestWord } from '../text/edit-distance.js';
import type { FieldPath } from '../text/source-locator.js';
import { readInputFile } from '../tools/read-input-file.js';
import { shownLocation } from '../tools/tool-entry-fields.js';
import type { Tool, ToolSet } from '../tools/tool.js';
import type {
  OpenedWorkflowTools,
  WorkflowToolSource,
  WorkflowToolsContext,
  WorkflowToolsOpener,
} from '../tools/workflow-tools-opener.js';
import { MAX_WORKFLOW_FILE_BYTES, parseExecutableWorkflow } from './read-workflow-file.js';
import type { ExecutableWorkflow } from './workflow.js';
import { createWorkflowTool, toolNameOfWorkflow, type WorkflowToolLimits, workflowCalls } from './workflow-tool.js';

/** Tools files a chain of workflow entries may lead through (each entry's `tools:` one level deeper). */
export const MAX_TOOLS_FILE_NESTING = 8;

interface Entry {
  readonly source: WorkflowToolSource;
  readonly workflow: ExecutableWorkflow;
  readonly name: string;
  readonly calls: readonly { readonly node: string; readonly tool: string }[];
  /** Undefined: the section's own tools. */
  readonly own?: ToolSet;
}

/** Opens workflow entries whose runs have `limits` (`weft exec`'s flags and config keys); nested tools files too. */
export function workflowToolsOpener(limits: WorkflowToolLimits = {}): WorkflowToolsOpener {
  return (sources, context) => openSection(sources, context, limits);
}

/** The opener with the default limits. */
export const openWorkflowTools: WorkflowToolsOpener = workflowToolsOpener();

async function openSection(
  sources: readonly WorkflowToolSource[],
  context: WorkflowToolsContext,
  limits: WorkflowToolLimits,
): Promise<OpenedWorkflowTools> {
  const issues: LocatedIssue[] = [];
  const at = (source: WorkflowToolSource, field: FieldPath, message: string): void => {
    issues.push({ ...source.locate([...source.path, ...field]), message });
  };
  const nested = new Map<string, Promise<ToolSet | WeftError>>();
  const reported = new Set<string>();
  const close = async (): Promise<void> => {
    const sets = await Promise.all(nested.values());
    await Promise.allSettled(sets.map((set) => (set instanceof WeftError ? undefined : set.close())));
  };
  try {
    const read = await Promise.all(sources.map((source) => readEntryWorkflow(source, issues, at)));
    // Every name the section gives, an entry with problems of its own included: a call to it is not reported too.
    const siblingNames = new Map(context.siblings.map((tool) => [tool.name, tool.source]));
    const sectionNames = new Set(siblingNames.keys());
    const entries: (Entry | undefined)[] = [];
    for (const [index, source] of sources.entries()) {
      const workflow = read[index];
      const name = source.spec.name ?? (workflow ? toolNameOfWorkflow(workflow.name) : undefined);
      if (name !== undefined) {
        const clash = duplicateOf(name, siblingNames, sources, index, read);
        if (clash !== undefined) {
          at(
            source,
            source.spec.name !== undefined ? ['name'] : ['file'],
            `duplicate tool name "${name}": ${sourceText(source)} and ${clash} both give it`,
          );
          entries.push(undefined);
          continue;
        }
        sectionNames.add(name);
      }
      if (!workflow) {
        entries.push(undefined);
        continue;
      }
      if (name === undefined) {
        at(source, [], `the workflow's name ${JSON.stringify(workflow.name)} makes no tool name: give one in "name"`);
      }
      checkSecretArgs(source, workflow, at);
      const own = source.spec.toolsFile
        ? await openOwnTools(source, context, { nested, reported, issues, at })
        : undefined;
      const usable = name !== undefined && (own !== undefined || source.spec.toolsFile === undefined);
      entries.push(
        usable ? { source, workflow, name, calls: workflowCalls(workflow), ...(own ? { own } : {}) } : undefined,
      );
    }
    // The section's workflow tools, whichever tools each calls itself: the others may call them.
    const section = new Map<string, Entry>();
    for (const entry of entries) if (entry) section.set(entry.name, entry);

    const complete = new Set<Entry>();
    for (const entry of entries) {
      // Which names a section gives is not known while some of its tools failed to open.
      if (!entry || (!entry.own && context.sectionHasProblems)) continue;
      if (checkCalls(entry, entry.own ? new Set(entry.own.tools.map((tool) => tool.name)) : sectionNames, at)) {
        complete.add(entry);
      }
    }
    const cyclic = new Set<Entry>();
    for (const [entry, cycle] of callCycles(section)) {
      cyclic.add(entry);
      at(
        entry.source,
        entry.source.spec.name !== undefined ? ['name'] : ['file'],
        `workflow tool "${entry.name}" would call itself: ${cycle.join(' → ')}`,
      );
    }

    // A workflow is idempotent when every tool it calls is; `idempotent: true` over one that is not is refused.
    const siblingTools = new Map(context.siblings.map((tool) => [tool.name, tool]));
    const firstNotIdempotent = new Map<Entry, { node: string; tool: string } | null>();
    const notIdempotentCall = (entry: Entry): { node: string; tool: string } | null => {
      const known = firstNotIdempotent.get(entry);
      if (known !== undefined) return known;
      firstNotIdempotent.set(entry, null); // cycles are reported above; this only ends the recursion
      const tools = entry.own ? new Map(entry.own.tools.map((tool) => [tool.name, tool])) : siblingTools;
      const found =
        entry.calls.find((call) => {
          const workflowTool = entry.own ? undefined : section.get(call.tool);
          if (workflowTool)
            return workflowTool.source.spec.idempotent === false || notIdempotentCall(workflowTool) !== null;
          return tools.get(call.tool)?.idempotent !== true;
        }) ?? null;
      firstNotIdempotent.set(entry, found);
      return found;
    };
    for (const entry of complete) {
      const call = cyclic.has(entry) ? null : notIdempotentCall(entry);
      if (entry.source.spec.idempotent === true && call) {
        at(
          entry.source,
          ['idempotent'],
          `workflow "${entry.workflow.name}" calls ${call.tool} (node ${call.node}), which is not idempotent: a retry or a resumed run would call it again`,
        );
      }
    }
    if (issues.length > 0 || context.sectionHasProblems) return { tools: sources.map(() => undefined), issues, close };

    // The section's workflow tools call each other through this array: it is complete before any of them runs.
    const sectionTools: Tool[] = [...context.siblings];
    const tools = entries.map((entry) => {
      if (!entry) return undefined;
      const tool = makeTool(
        entry,
        entry.own ? entry.own.tools : sectionTools,
        notIdempotentCall(entry) === null,
        limits,
      );
      sectionTools.push(tool);
      return tool;
    });
    return { tools, issues, close } satisfies OpenedWorkflowTools;
  } catch (error) {
    await close();
    throw error;
  }
}

function sourceText(source: WorkflowToolSource): string {
  return `workflow ${source.spec.shownFile} (${shownLocation(source.location)})`;
}

/** What else gives `name`: a sibling tool, or an earlier workflow entry; undefined when nothing does. */
function duplicateOf(
  name: string,
  siblings: ReadonlyMap<string, string>,
  sources: readonly WorkflowToolSource[],
  index: number,
  read: readonly (ExecutableWorkflow | undefined)[],
): string | undefined {
  const sibling = siblings.get(name);
  if (sibling !== undefined) return sibling;
  for (let earlier = 0; earlier < index; earlier++) {
    const source = sources[earlier]!;
    const workflow = read[earlier];
    const earlierName = source.spec.name ?? (workflow ? toolNameOfWorkflow(workflow.name) : undefined);
    if (earlierName === name) return sourceText(source);
  }
  return undefined;
}

function checkSecretArgs(
  source: WorkflowToolSource,
  workflow: ExecutableWorkflow,
  at: (source: WorkflowToolSource, field: FieldPath, message: string) => void,
): void {
  const inputs = Object.keys(workflow.inputs ?? {});
  source.spec.secretArgs?.forEach((arg, index) => {
    if (inputs.includes(arg)) return;
    at(
      source,
      ['secretArgs', index],
      `"${arg}" is not an input of the workflow (${inputs.length > 0 ? `its inputs: ${inputs.join(', ')}` : 'it has none'})`,
    );
  });
}

/** Reports each tool the workflow calls that `names` lacks, with a guess; true when it lacks none. */
function checkCalls(
  entry: Entry,
  names: ReadonlySet<string>,
  at: (source: WorkflowToolSource, field: FieldPath, message: string) => void,
): boolean {
  const { own, source, workflow } = entry;
  const from = own ? `the tools file ${source.spec.toolsFile!.display}` : 'this tools section';
  const byLower = new Map([...names].map((name) => [name.toLowerCase(), name]));
  let complete = true;
  for (const call of entry.calls) {
    if (names.has(call.tool)) continue;
    complete = false;
    const guess = closestWord(call.tool, [...byLower.keys()]);
    at(
      source,
      own ? ['tools'] : ['file'],
      `workflow "${workflow.name}" calls tool "${call.tool}" (node ${call.node}), which ${from} does not give${guess === undefined ? '' : ` (did you mean "${byLower.get(guess)}"?)`}`,
    );
  }
  return complete;
}

function makeTool(entry: Entry, tools: readonly Tool[], allIdempotent: boolean, limits: WorkflowToolLimits): Tool {
  const { spec } = entry.source;
  return createWorkflowTool(entry.workflow, {
    name: entry.name,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    tools,
    source: sourceText(entry.source),
    file: spec.shownFile,
    ...(spec.toolsFile ? { toolsFile: spec.toolsFile.shown } : {}),
    idempotent: spec.idempotent ?? allIdempotent,
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    ...(spec.maxVisits !== undefined ? { maxVisits: spec.maxVisits } : {}),
    ...(spec.secretArgs ? { secretArgs: spec.secretArgs } : {}),
    ...(spec.concurrency !== undefined ? { concurrency: spec.concurrency } : {}),
    ...(spec.maxResultBytes !== undefined ? { maxResultBytes: spec.maxResultBytes } : {}),
    limits,
  });
}

/** The workflow of an entry, or undefined with its problems reported (located in the workflow file). */
async function readEntryWorkflow(
  source: WorkflowToolSource,
  issues: LocatedIssue[],
  at: (source: WorkflowToolSource, field: FieldPath, message: string) => void,
): Promise<ExecutableWorkflow | undefined> {
  const { spec } = source;
  let text: string;
  try {
    text = await readInputFile(spec.workflowPath, 'workflow file', MAX_WORKFLOW_FILE_BYTES);
  } catch (error) {
    if (!isWeftError(error) || error.code !== 'BAD_INPUT') throw error;
    at(source, ['file'], `${error.message} (${spec.displayFile})`);
    return undefined;
  }
  const result = await parseExecutableWorkflow(text, spec.displayFile);
  if (result.workflow) return result.workflow;
  const errors = result.problems.filter((problem) => problem.severity === 'error');
  at(
    source,
    ['file'],
    `the workflow ${spec.displayFile} does not check: ${errors.length} ${errors.length === 1 ? 'problem' : 'problems'} (listed with its name)`,
  );
  for (const problem of errors) {
    issues.push({
      file: spec.displayFile,
      ...(problem.line !== undefined ? { line: problem.line } : {}),
      ...(problem.column !== undefined ? { column: problem.column } : {}),
      ...(problem.path !== undefined ? { field: problem.path } : {}),
      message: problem.message,
    });
  }
  return undefined;
}

/** The tools file an entry names in `tools:`, loaded once per section; undefined with its problems reported. */
async function openOwnTools(
  source: WorkflowToolSource,
  context: WorkflowToolsContext,
  found: {
    /** The files opened so far, by absolute path: several entries may name one. */
    readonly nested: Map<string, Promise<ToolSet | WeftError>>;
    /** The files whose problems are already listed. */
    readonly reported: Set<string>;
    readonly issues: LocatedIssue[];
    readonly at: (source: WorkflowToolSource, field: FieldPath, message: string) => void;
  },
): Promise<ToolSet | undefined> {
  const { nested, reported, issues, at } = found;
  const file = source.spec.toolsFile!;
  // Its MCP servers would be started for a section that cannot be used; its own problems come once this one's are fixed.
  if (context.sectionHasProblems) return undefined;
  if (context.within.includes(file.path)) {
    const chain = [...context.within.slice(context.within.indexOf(file.path)), file.path];
    at(
      source,
      ['tools'],
      `${file.display} is already being loaded (${chain.join(' → ')}): a workflow's tools file cannot lead back to a file that names it; leave "tools" out to call the tools of this section`,
    );
    return undefined;
  }
  if (context.within.length >= MAX_TOOLS_FILE_NESTING) {
    at(source, ['tools'], `tools files nest more than ${MAX_TOOLS_FILE_NESTING} deep through workflow entries`);
    return undefined;
  }
  if (!context.openToolsFile) {
    at(
      source,
      ['tools'],
      "a workflow's own tools file can be opened only when the section is loaded with loadToolsFile",
    );
    return undefined;
  }
  const open = context.openToolsFile;
  let loading = nested.get(file.path);
  if (!loading) {
    loading = open(file.path).catch((error: unknown) => {
      if (isWeftError(error) && error.code === 'BAD_INPUT') return error;
      throw error;
    });
    nested.set(file.path, loading);
  }
  const set = await loading;
  if (!(set instanceof WeftError)) return set;
  at(source, ['tools'], `the tools file ${file.display} has problems (listed with its name)`);
  if (!reported.has(file.path)) {
    reported.add(file.path);
    issues.push(...(set.issues.length > 0 ? set.issues : [{ ...set.location, message: set.message }]));
  }
  return undefined;
}

/** Each section workflow tool on a call cycle, with one cycle through it (`a → b → a`). */
function callCycles(section: ReadonlyMap<string, Entry>): [Entry, string[]][] {
  // A workflow with its own tools file calls none of the section's tools.
  const next = (entry: Entry): string[] =>
    entry.own ? [] : [...new Set(entry.calls.map((call) => call.tool).filter((tool) => section.has(tool)))];
  const found: [Entry, string[]][] = [];
  for (const [name, entry] of section) {
    // Breadth first from its callees, so the cycle reported is a shortest one.
    const parent = new Map<string, string>();
    const queue = next(entry).map((callee) => {
      parent.set(callee, name);
      return callee;
    });
    let cycle: string[] | undefined;
    while (queue.length > 0 && !cycle) {
      const current = queue.shift()!;
      if (current === name) {
        const path = [name];
        for (let step = parent.get(name)!; step !== name; step = parent.get(step)!) path.unshift(step);
        cycle = [name, ...path];
        break;
      }
      for (const callee of next(section.get(current)!)) {
        if (parent.has(callee)) continue;
        parent.set(callee, current);
        queue.push(callee);
      }
    }
    if (cycle) found.push([entry, cycle]);
  }
  return found;
}
