// Fails when the import graph under a folder has a cycle (docs/design.md#layers: "no import cycles"), or when a layer
// imports one it must not (the dependency direction of docs/design.md#layers).
// Uses TypeScript's own pre-processor so that `.js` specifiers resolve to their `.ts` sources.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? 'src');

function listSources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listSources(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveLocal(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.(m?js)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.mts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* try the next */
    }
  }
  return undefined;
}

const files = listSources(root);
const graph = new Map();
for (const file of files) {
  // Type-only imports vanish at run time but still tangle the layers, so they count too.
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = info.importedFiles.map((ref) => resolveLocal(file, ref.fileName)).filter(Boolean);
  graph.set(file, [...new Set(targets)]);
}

const state = new Map(); // undefined = unvisited, 1 = on stack, 2 = done
const stack = [];
const cycles = [];
function visit(file) {
  state.set(file, 1);
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === 1) cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, 2);
}
for (const file of files) if (!state.has(file)) visit(file);

// Leaves, like errors.ts: every layer may import them, and they import nothing else from src/ (not even errors.ts).
const LEAVES = ['text'];
// Which top-level folders of src/ each layer may import (besides itself, errors.ts and the leaves).
const ALLOWED = {
  text: [],
  graph: [],
  // The models layer names no engine: not by import (an engine's prompts and its `sim:` responders live with the
  // engine, see the sim rule below), so run, plan, team, dialog, distill, eval, tools, workers, ui and cli are all out.
  llm: [],
  store: ['graph'],
  // The engines' shared runtime beneath them: metering, budgets and deadlines of model calls, the bounded map, the
  // integer option check.
  runtime: ['llm', 'store'],
  plan: ['graph', 'llm'],
  // Role kinds other than `llm` (teams, …) plug in from the top (src/role-kinds.ts): run never imports them.
  run: ['graph', 'llm', 'store', 'plan', 'tools', 'runtime'],
  // WorfEval scores graphs; its benchmark runner asks Weft's planner (`planTask`) for workflows.
  eval: ['graph', 'llm', 'plan', 'runtime'],
  // DyLAN teams: agents are models (llm); the team role kind implements run's RoleKindEngine, runs its subtasks
  // with the planner's prompt (plan) and keeps its scores in the stores (store's team-scores types).
  team: ['llm', 'graph', 'run', 'store', 'plan', 'runtime'],
  // Distributed execution sits on top, like the CLI, but is part of the library (index.ts exports it), so it may
  // import the layers below it directly.
  // …and exec-case jobs: a worker runs one case of a batch with distill's interpreter.
  workers: ['graph', 'llm', 'store', 'plan', 'run', 'team', 'tools', 'distill', 'runtime'],
  // Tools: HTTP, module and MCP tools under one contract; they reuse llm's limiter, timers and retries.
  tools: ['graph', 'llm', 'runtime'],
  // Conversational procedures: the bot is a model (llm), its APIs are tools, sessions live in the stores
  // (store's session types).
  dialog: ['llm', 'store', 'tools', 'runtime'],
  // Distillation: workflows call tools; the execute and summarize stages (to come) use models and traces;
  // a workflow converts to WorfBench text (eval's format) so WorfEval can score it against a reference.
  distill: ['graph', 'llm', 'store', 'tools', 'eval', 'runtime'],
  // The store conformance suites of `weft/test` check the stores' contracts: runs (store), team scores (team),
  // sessions (dialog), batches (read and written through distill's batch log reader and writer).
  testing: ['graph', 'store', 'team', 'dialog', 'distill'],
  // The dashboard reads what every engine records, and runs none of them.
  ui: ['graph', 'llm', 'store', 'plan', 'run', 'team', 'dialog', 'distill', 'eval', 'tools', 'runtime'],
};
// The CLI is a client of the library: from the rest of src/ it may import only the package's entries, src/index.ts
// (`weft`, the library API), src/internal.ts (`weft/internal`: what the CLI and its MCP server need beyond it) and
// src/core.ts (`weft/core`, the light part the CLI's fast commands import alone). What it needs and they lack is to
// be exported from internal.ts. (src/test.ts, `weft/test`, is for users' tests, not for the CLI.)
const PUBLIC_ENTRIES = ['index.ts', 'internal.ts', 'core.ts'].map((name) => join(root, name));
// Files at the top of src/ that import nothing from src/ but errors.ts (index.ts re-exports them): every layer, and
// the CLI's start-up, may import them. integer-option.ts is one so that the models layer (llm), which imports no
// other layer, checks its integer options with the same function as the engines. Other top-level files (index.ts,
// internal.ts, test.ts, role-kinds.ts, load-tools-file.ts) assemble layers and sit above them.
const TOP_LEAVES = ['errors.ts', 'run-defaults.ts', 'integer-option.ts'].map((name) => join(root, name));
const ERRORS = join(root, 'errors.ts');
// The library's clients, and which other client each may import: the command line, and the MCP server that
// `weft mcp` starts (src/serve/, beside the dashboard), which answers with the CLI's own run and show documents and
// model and tools loading. The cycle check above still applies file by file.
const CLIENTS = { cli: ['serve'], serve: ['cli'] };
const layerOf = (file) => {
  const parts = relative(root, file).split(/[\\/]/);
  return parts.length > 1 ? parts[0] : undefined;
};
const violations = [];
for (const [file, targets] of graph) {
  const layer = layerOf(file);
  const peers = Object.hasOwn(CLIENTS, layer) ? CLIENTS[layer] : undefined;
  if (peers) {
    for (const target of targets) {
      const other = layerOf(target);
      if (PUBLIC_ENTRIES.includes(target) || TOP_LEAVES.includes(target) || other === layer || peers.includes(other))
        continue;
      violations.push(
        `${relative(process.cwd(), file)} (${layer}) imports ${relative(process.cwd(), target)}: src/${layer} may import from src/ only the entries src/index.ts, src/internal.ts and src/core.ts, the leaves (errors.ts, run-defaults.ts, integer-option.ts), src/${layer}/*${peers.map((peer) => ` and src/${peer}/*`).join('')}; export what it needs from src/internal.ts`,
      );
    }
    continue;
  }
  const allowed = ALLOWED[layer];
  if (!allowed) continue;
  for (const target of targets) {
    const other = layerOf(target);
    if (other === layer) continue;
    const topLeaf = other === undefined && TOP_LEAVES.includes(target);
    if (!LEAVES.includes(layer) && (topLeaf || LEAVES.includes(other) || allowed.includes(other))) continue;
    violations.push(
      `${relative(process.cwd(), file)} (${layer}) imports ${relative(process.cwd(), target)} (${other ?? 'src/'})`,
    );
  }
}
for (const leaf of TOP_LEAVES) {
  for (const target of graph.get(leaf) ?? []) {
    if (target === ERRORS && leaf !== ERRORS) continue;
    violations.push(`${relative(process.cwd(), leaf)} is a leaf and imports ${relative(process.cwd(), target)}`);
  }
}
// The `sim:` model in src/llm keeps only the seeded mechanics (latency, faults, clock, tool calls, the responder
// registry); what it answers to an engine's call is that engine's responder, next to the engine's prompts. So a
// src/llm/sim-*.ts file must be one of the generic ones, and none of them may name an engine's purpose in code,
// nor an engine's `sim:` option key (each engine registers its keys next to its responders).
const GENERIC_SIM_FILES = new Set([
  'sim-model.ts',
  'sim-options.ts',
  'sim-responders.ts',
  'sim-call-text.ts',
  'sim-bad-json.ts',
  'sim-tool-args.ts',
]);
const ENGINE_PURPOSES = new Set([
  'plan',
  'execute',
  'verify',
  'update',
  'rank',
  'answer',
  'worfbench',
  'converse',
  'simulate-user',
  'judge',
  'solve',
  'distill',
  'simulate-api',
]);
const ENGINE_SIM_OPTIONS = new Set([
  'fail',
  'tasks',
  'width',
  'accuracy',
  'follow',
  'answers',
  'violate',
  'noise',
  'mistake',
  'solvefail',
  'reference',
]);
for (const file of files) {
  const rel = relative(root, file).split(/[\\/]/);
  if (rel.length !== 2 || rel[0] !== 'llm' || !rel[1].startsWith('sim-')) continue;
  const where = relative(process.cwd(), file);
  if (!GENERIC_SIM_FILES.has(rel[1])) {
    violations.push(
      `${where}: src/llm holds only the sim model's generic parts (${[...GENERIC_SIM_FILES].join(', ')}); an engine's sim responder lives with the engine and registers through src/sim-responders.ts`,
    );
    continue;
  }
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const literals = [];
  const members = [];
  const walk = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literals.push(node.text);
    if (ts.isPropertyAccessExpression(node) || ts.isPropertySignature(node) || ts.isPropertyAssignment(node))
      members.push(node.name.getText(source));
    ts.forEachChild(node, walk);
  };
  walk(source);
  for (const text of literals.filter((literal) => ENGINE_PURPOSES.has(literal)))
    violations.push(
      `${where} names the engine purpose '${text}': what the sim answers to it belongs in that engine's responder`,
    );
  for (const name of new Set([...literals, ...members].filter((name) => ENGINE_SIM_OPTIONS.has(name))))
    violations.push(
      `${where} names the engine's sim option '${name}': the engine registers it next to its responders (registerSimOptions)`,
    );
}
for (const violation of violations) console.error(`layering: ${violation}`);

if (cycles.length > 0 || violations.length > 0) {
  for (const cycle of cycles)
    console.error(`import cycle: ${cycle.map((f) => relative(process.cwd(), f)).join(' -> ')}`);
  process.exit(1);
}
console.log(
  `no import cycles or layering violations among ${files.length} files under ${relative(process.cwd(), root) || '.'}`,
);
