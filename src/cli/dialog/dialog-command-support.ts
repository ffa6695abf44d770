/** What `weft simulate` and `weft dialog eval` share: the procedure, its tools and controllers, the models. */
import {
  loadPdlFile,
  tracedModel,
  redactModelSpec,
  type ChatModel,
  type ChatResult,
  type ControllerMode,
  type Pdl,
  type ToolSet,
} from '../../internal.js';
import type { Context } from '../context.js';
import { loadModel } from '../context.js';
import { loadRunTools } from '../load-run-tools.js';

export interface DialogModel {
  readonly role: string;
  /** The spec as the user gave it (shown), or the model's id when it came from the config or environment. */
  readonly spec: string;
  readonly model: ChatModel;
  readonly costOf: (result: ChatResult) => number;
}

/** The models of an evaluation by role (`bot`, `user`, `judge`), each made like `--model` (retries, timeout, cap). */
export async function loadDialogModels(
  specs: Readonly<Record<string, string | undefined>>,
  context: Context,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DialogModel[]> {
  const models: DialogModel[] = [];
  for (const [role, spec] of Object.entries(specs)) {
    const loaded = await loadModel(spec, context.config, env);
    models.push({
      role,
      spec: spec ?? loaded.model.id,
      // With tracing on, a `chat` span per call (the same object prices its calls: costByModel finds it).
      model: tracedModel(loaded.model, { costOf: loaded.costOf }),
      costOf: (result) => loaded.costOf(result, loaded.model.id),
    });
  }
  return models;
}

/** Prices a call by the model that made it. */
export function costByModel(models: readonly DialogModel[]): (result: ChatResult, model: ChatModel) => number {
  return (result, model) => models.find((entry) => entry.model === model)?.costOf(result) ?? 0;
}

/** The models by role for a `--json` report, specs redacted (a URL may carry credentials). */
export function modelsDocument(models: readonly DialogModel[]): Record<string, { model: string; kind: string }> {
  return Object.fromEntries(
    models.map(({ role, spec, model }) => [role, { model: redactModelSpec(spec), kind: model.kind }]),
  );
}

/** `models: sim:seed=1 (sim model): bot, user` lines, labelling scripted and simulated ones. */
export function dialogModelLines(models: readonly DialogModel[]): string[] {
  const byId = new Map<string, { kind: ChatModel['kind']; roles: string[] }>();
  for (const { role, spec, model } of models) {
    const id = redactModelSpec(spec);
    const entry = byId.get(id) ?? { kind: model.kind, roles: [] };
    entry.roles.push(role);
    byId.set(id, entry);
  }
  return [
    'models:',
    ...[...byId].map(
      ([id, { kind, roles }]) => `  ${id}${kind === 'real' ? '' : ` (${kind} model)`}: ${roles.join(', ')}`,
    ),
  ];
}

export interface LoadedProcedure {
  readonly pdl: Pdl;
  readonly toolSet: ToolSet | undefined;
}

/**
 * The PDL file and its tools (`--tools` and the file's own `tools:` section, merged). Its controller modules are
 * loaded by the engine and by turn evaluation themselves (procedureControllers). The caller closes `toolSet`.
 */
export async function loadProcedure(
  file: string,
  options: { readonly toolsFile?: string | undefined },
  signal: AbortSignal,
): Promise<LoadedProcedure> {
  const pdl = await loadPdlFile(file);
  const { toolSet } = await loadRunTools(
    { toolsFile: options.toolsFile, ...(pdl.hasTools ? { planFile: file } : {}) },
    signal,
  );
  return { pdl, toolSet };
}

/** `--no-post-controllers` and `--no-controllers` (commander sets them false) as a ControllerMode. */
export function controllerModeOf(flags: {
  readonly postControllers?: boolean;
  readonly controllers?: boolean;
}): ControllerMode {
  if (flags.controllers === false) return 'none';
  if (flags.postControllers === false) return 'pre-only';
  return 'all';
}

/** `0.123` → `0.123`; a count → as is. */
export function fixed(value: number, digits = 3): string {
  return value.toFixed(digits);
}

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
