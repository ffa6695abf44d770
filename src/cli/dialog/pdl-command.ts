/**
 * `weft pdl check FILE` and `weft pdl show FILE`: a procedure's problems, located, all at once; and its
 * API dependency graph, as text or Mermaid. Check exits 2 on errors and 0 with only warnings.
 *
 * Bindings (every API needs a tool of its name) are checked against the tools of `--tools` and of the file's own
 * `tools:` section, opened as a conversation would open them (modules imported, MCP servers started and closed
 * again); without either there is nothing to bind to, and the output says the check was skipped.
 */
import {
  apiGraph,
  checkPdl,
  loadPdlFile,
  loadToolsFile,
  type Pdl,
  type PdlProblem,
  parsePdl,
  pdlMermaid,
  pdlText,
  readPdlText,
} from '../../internal.js';
import { formatLocation, isWeftError } from '../../errors.js';
import type { Output } from '../output.js';

export interface PdlCheckFlags {
  readonly tools?: string;
  readonly json?: boolean;
}

export interface PdlShowFlags {
  readonly mermaid?: boolean;
  readonly json?: boolean;
}

export async function pdlCheckCommand(
  file: string,
  flags: PdlCheckFlags,
  output: Output,
  signal: AbortSignal,
): Promise<number> {
  const parsed = parsePdl(await readPdlText(file), { file });
  const problems = [...parsed.problems];
  let skipped: string | undefined;
  let answeredByModel: { declared: string[]; simulated: string[] } = { declared: [], simulated: [] };
  if (parsed.pdl) {
    const bindings = await bindingTools(parsed.pdl, file, flags.tools, problems, signal);
    skipped = bindings.skipped;
    const apis = new Set(parsed.pdl.apis.map((api) => api.name));
    answeredByModel = {
      declared: (bindings.declared ?? []).filter((name) => apis.has(name)),
      simulated: (bindings.simulated ?? []).filter((name) => apis.has(name)),
    };
    problems.push(...checkPdl(parsed.pdl, bindings.names ? { toolNames: bindings.names } : {}));
  }
  // By file (the PDL's first), then by place: the order an editor walks them in.
  const sorted = problems
    .map((problem, index) => ({ problem, index }))
    .sort(
      (a, b) =>
        Number((a.problem.file ?? file) !== file) - Number((b.problem.file ?? file) !== file) ||
        (a.problem.line ?? 0) - (b.problem.line ?? 0) ||
        (a.problem.column ?? 0) - (b.problem.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ problem }) => problem);
  const errors = sorted.filter((problem) => problem.severity === 'error').length;
  const warnings = sorted.length - errors;
  if (output.json) {
    output.document({
      ok: errors === 0,
      problems: sorted.map(({ severity, file: where, line, column, path, message }) => ({
        severity,
        ...(where !== undefined && where !== file ? { file: where } : {}),
        line: line ?? null,
        column: column ?? null,
        path: path ?? null,
        message,
      })),
      bindingsChecked: skipped === undefined,
      declaredOnly: answeredByModel.declared,
      simulated: answeredByModel.simulated,
    });
  } else {
    for (const problem of sorted) {
      const where = formatLocation({
        file: problem.file ?? file,
        ...(problem.line === undefined ? {} : { line: problem.line }),
        ...(problem.column === undefined ? {} : { column: problem.column }),
        ...(problem.path === undefined ? {} : { field: problem.path }),
      });
      output.text(`${where}: ${problem.severity}: ${problem.message}`);
    }
    if (skipped !== undefined) output.text(`${file}: bindings not checked: ${skipped}`);
    if (answeredByModel.declared.length > 0)
      output.text(
        `${file}: declared without an endpoint (chat and simulate need --simulate-apis for them): ${answeredByModel.declared.join(', ')}`,
      );
    if (answeredByModel.simulated.length > 0)
      output.text(`${file}: simulated (answered by a model): ${answeredByModel.simulated.join(', ')}`);
    output.text(
      errors + warnings === 0 ? `${file}: ok` : `${file}: ${count(errors, 'error')}, ${count(warnings, 'warning')}`,
    );
  }
  return errors > 0 ? 2 : 0;
}

export async function pdlShowCommand(file: string, flags: PdlShowFlags, output: Output): Promise<number> {
  const pdl = await loadPdlFile(file);
  if (output.json) {
    const graph = apiGraph(pdl);
    output.document({
      name: pdl.name,
      desc: pdl.desc,
      ...(pdl.detailedDesc === undefined ? {} : { detailedDesc: pdl.detailedDesc }),
      slots: pdl.slots,
      apis: pdl.apis,
      answers: pdl.answers,
      order: graph.order,
      edges: graph.edges,
      references: pdl.references,
      controllers: pdl.controllers,
      hasTools: pdl.hasTools,
      sha256: pdl.sha256,
      ...(flags.mermaid ? { mermaid: pdlMermaid(pdl) } : {}),
    });
  } else {
    output.text(flags.mermaid ? pdlMermaid(pdl) : pdlText(pdl));
  }
  return 0;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

interface Bindings {
  /** The tools APIs may bind to; undefined when there are none to check against. */
  readonly names?: readonly string[];
  /** Of those, the ones a model answers: declared only (a tools spec's APIs) or `kind: simulated`. */
  readonly declared?: readonly string[];
  readonly simulated?: readonly string[];
  /** Why bindings were not checked. */
  readonly skipped?: string;
}

/**
 * The names of the tools of `--tools` and of the PDL's own section. A tools file or section with problems adds
 * them to `problems` (located in its file) and skips the binding check: every API would be reported unbound.
 */
async function bindingTools(
  pdl: Pdl,
  file: string,
  toolsFile: string | undefined,
  problems: PdlProblem[],
  signal: AbortSignal,
): Promise<Bindings> {
  if (toolsFile === undefined && !pdl.hasTools) return { skipped: 'no --tools and no tools: section' };
  const sectionBroken = problems.some(
    (problem) => problem.severity === 'error' && /^(?:tools|allowHosts)\b/.test(problem.path ?? ''),
  );
  if (sectionBroken) return { skipped: "the file's tools: section has problems" };
  const sources: { path: string; embedded: boolean; label: string }[] = [
    ...(toolsFile === undefined ? [] : [{ path: toolsFile, embedded: false, label: toolsFile }]),
    ...(pdl.hasTools ? [{ path: file, embedded: true, label: `the tools: section of ${file}` }] : []),
  ];
  const names = new Map<string, string>();
  const declared: string[] = [];
  const simulated: string[] = [];
  let failed = false;
  for (const source of sources) {
    try {
      const set = await loadToolsFile(source.path, { embedded: source.embedded, signal });
      try {
        for (const tool of set.tools) {
          const earlier = names.get(tool.name);
          if (earlier !== undefined) {
            problems.push({
              severity: 'error',
              file: source.path,
              path: 'tools',
              message: `tool "${tool.name}" is defined twice: in ${earlier} and in ${source.label}`,
            });
          } else {
            names.set(tool.name, source.label);
            if (tool.declaredOnly) declared.push(tool.name);
            else if (tool.simulated) simulated.push(tool.name);
          }
        }
      } finally {
        await set.close();
      }
    } catch (error) {
      if (!isWeftError(error) || error.code !== 'BAD_INPUT') throw error;
      failed = true;
      for (const issue of error.issues.length > 0 ? error.issues : [{ ...error.location, message: error.message }]) {
        problems.push({
          severity: 'error',
          file: issue.file ?? source.path,
          ...(issue.line === undefined ? {} : { line: issue.line }),
          ...(issue.column === undefined ? {} : { column: issue.column }),
          ...(issue.field === undefined ? {} : { path: issue.field }),
          message: issue.message,
        });
      }
    }
  }
  if (failed) return { skipped: 'the tools could not all be opened' };
  return { names: [...names.keys()], declared, simulated };
}
