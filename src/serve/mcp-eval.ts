/**
 * `weft mcp`'s weft_eval: WorfEval scores of a predicted workflow against a gold one, as `weft eval pred --gold gold`
 * prints for one pair, with each side given inline (WorfBench text, or an executable workflow or Weft plan as a JSON
 * object) or as a file; or, bounded, a whole WorfBench predictions file against its gold data, as `weft eval
 * predictions.jsonl --gold dir` does. Every problem is a BAD_INPUT naming the argument (and the place inside it).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  compareWorkflowTexts,
  createSimilarity,
  DEFAULT_BETA,
  DEFAULT_MAX_ORDERS,
  DEFAULT_MCIS_TIME_LIMIT_MS,
  evaluatePredictions,
  formatWorkflowText,
  loadGold,
  loadWorkflowFile,
  MAX_WORKFLOW_FILE_BYTES,
  parseExecutableWorkflow,
  parsePredictions,
  parseWorkflow,
  parseWorkflowText,
  readInputFile,
  redactModelSpec,
  WeftError,
  workflowFileKind,
  workflowToWorfText,
  workflowToWorkflowText,
  type LocatedIssue,
  type ScoreOptions,
  type WorkflowText,
} from '../internal.js';

/** Inline WorfBench text and text files: WorfBench's workflows are a few kilobytes. */
export const MAX_EVAL_TEXT_CHARS = 1_000_000;
/** A predictions file scored in one call: WorfBench's development set is 1,746 records (about 4 s, lexical). */
export const MAX_EVAL_PREDICTIONS = 10_000;
/** Nesting of an inline workflow or plan, as for files (MAX_NESTING_DEPTH). */
const MAX_INLINE_DEPTH = 100;
const MAX_PREDICTIONS_FILE_BYTES = 100_000_000;
/** Per-sample rows and skip reasons returned by default for a predictions file (the means cover them all). */
const DEFAULT_LISTED_SAMPLES = 20;
const MAX_LISTED_SAMPLES = 1000;

const path = z.string().min(1).max(4096);
const inline = z.union([
  z.string().min(1).max(MAX_EVAL_TEXT_CHARS).describe('WorfBench text: "Node:\\n1: …\\nEdge: (START,1) …"'),
  z
    .record(z.string(), z.unknown())
    .describe('an executable workflow ({name, nodes, edges}) or a Weft plan ({task, roles, subtasks})'),
]);

export const evalInputShape = {
  predicted: inline.optional().describe('the predicted workflow, inline: WorfBench text or a JSON object'),
  predictedFile: path.optional().describe('the predicted workflow as a file (.json/.yaml workflow or plan, or text)'),
  gold: inline.optional().describe('the gold (reference) workflow, inline'),
  goldFile: path
    .optional()
    .describe('the gold workflow as a file; with predictionsFile, WorfBench gold data (a .json/.jsonl file or folder)'),
  predictionsFile: path
    .optional()
    .describe(
      `a WorfBench predictions file (one {"id", "output"} per line, at most ${MAX_EVAL_PREDICTIONS}), scored against goldFile`,
    ),
  similarity: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('node similarity: lexical (default) or an embedding model spec, as `weft eval --similarity`'),
  beta: z.number().gt(0).max(1).optional().describe(`similarity threshold for a node match (default ${DEFAULT_BETA})`),
  maxOrders: z.number().int().min(1).max(10_000).optional().describe('gold orders tried for f1_chain (default 20)'),
  mcisTimeLimitMs: z
    .number()
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .describe('time limit of the common-subgraph search per sample (default 2000)'),
  samples: z
    .number()
    .int()
    .min(0)
    .max(MAX_LISTED_SAMPLES)
    .optional()
    .describe(`with predictionsFile: per-sample rows and skip reasons listed (default ${DEFAULT_LISTED_SAMPLES})`),
};

type Inline = string | Record<string, unknown>;

export interface EvalArguments {
  readonly predicted?: Inline | undefined;
  readonly predictedFile?: string | undefined;
  readonly gold?: Inline | undefined;
  readonly goldFile?: string | undefined;
  readonly predictionsFile?: string | undefined;
  readonly similarity?: string | undefined;
  readonly beta?: number | undefined;
  readonly maxOrders?: number | undefined;
  readonly mcisTimeLimitMs?: number | undefined;
  readonly samples?: number | undefined;
}

export interface EvalEnvironment {
  /** Weft's home: the embedding cache lives under it. */
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
}

export async function mcpEval(args: EvalArguments, environment: EvalEnvironment): Promise<unknown> {
  const options: ScoreOptions = {
    ...(args.beta !== undefined ? { beta: args.beta } : {}),
    ...(args.maxOrders !== undefined ? { maxOrders: args.maxOrders } : {}),
    ...(args.mcisTimeLimitMs !== undefined ? { mcisTimeLimitMs: args.mcisTimeLimitMs } : {}),
  };
  const settings = {
    beta: options.beta ?? DEFAULT_BETA,
    maxOrders: options.maxOrders ?? DEFAULT_MAX_ORDERS,
    mcisTimeLimitMs: options.mcisTimeLimitMs ?? DEFAULT_MCIS_TIME_LIMIT_MS,
  };
  if (args.predictionsFile !== undefined) return evalPredictionsFile(args, options, environment);
  if (args.samples !== undefined) throw badArgument('samples', 'applies only with predictionsFile');
  const predicted = await readSide('predicted', args.predicted, args.predictedFile);
  const gold = await readSide('gold', args.gold, args.goldFile);
  // The idf is fitted on the gold's texts, as for WorfBench gold.
  const similarity = await createSimilarity(args.similarity ?? 'lexical', {
    corpus: gold.text.nodes,
    cacheDir: join(environment.home, 'cache', 'embeddings'),
    env: environment.env,
  });
  try {
    const { score } = await compareWorkflowTexts(gold.text, predicted.text, similarity, {
      ...options,
      signal: environment.signal,
    });
    const side = (read: ReadSide) => ({
      from: read.from,
      ...(read.file !== undefined ? { file: read.file } : {}),
      steps: read.text.nodes.length,
      text: formatWorkflowText(read.text),
    });
    return {
      // An embedding model's spec may carry a URL with credentials.
      similarity: redactModelSpec(similarity.name),
      ...settings,
      gold: side(gold),
      predicted: side(predicted),
      ...score,
    };
  } finally {
    await similarity.close?.();
  }
}

interface ReadSide {
  readonly text: WorkflowText;
  /** What the side was read as. */
  readonly from: 'workflow' | 'plan' | 'text';
  readonly file?: string;
}

/** One side, from exactly one of its inline and file arguments. */
async function readSide(
  field: 'predicted' | 'gold',
  value: Inline | undefined,
  file: string | undefined,
): Promise<ReadSide> {
  const fileField = `${field}File`;
  if (value !== undefined && file !== undefined) {
    throw badArgument(field, `give ${field} or ${fileField}, not both`);
  }
  if (value === undefined && file === undefined) {
    throw badArgument(field, `give the ${field} workflow: ${field} (inline) or ${fileField} (a path)`);
  }
  if (file !== undefined) return { ...(await readSideFile(fileField, file)), file };
  if (typeof value === 'string') return { text: fromText(value, { field }), from: 'text' };
  return fromObject(field, value!);
}

async function readSideFile(field: string, file: string): Promise<Omit<ReadSide, 'file'>> {
  const kind = await workflowFileKind(file);
  if (kind === 'workflow' || kind === 'unreadable') {
    // loadWorkflowFile explains an unreadable .json/.yaml file with its located errors.
    return { text: workflowToWorfText((await loadWorkflowFile(file)).workflow), from: 'workflow' };
  }
  const text = await readInputFile(file, `${field} file`, MAX_WORKFLOW_FILE_BYTES);
  if (!/\.(?:json|ya?ml)$/i.test(file)) return { text: fromText(text, { file }), from: 'text' };
  // A .json/.yaml file without `nodes`: a Weft plan (what `weft plan --out` writes), or nothing Weft can score.
  const parsed = parseWorkflow(text, { file, sections: ['tools', 'allowHosts'] });
  if (!parsed.ok) {
    throw new WeftError(
      'BAD_INPUT',
      `${field}: neither an executable workflow ("nodes") nor a valid Weft plan ("subtasks")`,
      { location: { file }, issues: parsed.issues },
    );
  }
  return { text: workflowToWorkflowText(parsed.workflow), from: 'plan' };
}

/** WorfBench text, whose problems are located by line and column in it (and the file, when it is one). */
function fromText(text: string, where: { field: string } | { file: string }): WorkflowText {
  const parsed = parseWorkflowText(text);
  if (parsed.ok) return parsed.workflow;
  const issues: LocatedIssue[] = parsed.issues.map((issue) => ({
    ...('file' in where ? { file: where.file } : {}),
    line: issue.line,
    column: issue.column,
    field: 'field' in where ? where.field : issue.field,
    message: issue.message,
  }));
  throw new WeftError('BAD_INPUT', 'not usable WorfBench workflow text', {
    location: 'file' in where ? { file: where.file } : { field: where.field },
    issues,
  });
}

/** An inline object: an executable workflow when it has `nodes`, else a Weft plan; problems name their field. */
async function fromObject(field: string, value: Record<string, unknown>): Promise<ReadSide> {
  // Readers recurse once per level: a hostile object would overflow the stack (files get the same limit).
  if (nestsDeeperThan(value, MAX_INLINE_DEPTH))
    throw badArgument(field, `nested deeper than ${MAX_INLINE_DEPTH} levels`);
  if (Object.hasOwn(value, 'nodes')) {
    const result = await parseExecutableWorkflow(JSON.stringify(value), undefined);
    if (result.workflow) return { text: workflowToWorfText(result.workflow), from: 'workflow' };
    // Lines and columns would be those of our own serialization: only the field paths mean something.
    const issues = result.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => ({
        field: problem.path !== undefined ? `${field}.${problem.path}` : field,
        message: problem.message,
      }));
    throw new WeftError('BAD_INPUT', 'invalid executable workflow', { location: { field }, issues });
  }
  if (!Object.hasOwn(value, 'subtasks')) {
    throw badArgument(
      field,
      'expected WorfBench text, an executable workflow (an object with "nodes") or a Weft plan (an object with "subtasks")',
    );
  }
  const parsed = parseWorkflow(value, { sections: ['tools', 'allowHosts'] });
  if (!parsed.ok) {
    const issues = parsed.issues.map((issue) => ({
      field: issue.field !== undefined ? `${field}.${issue.field}` : field,
      message: issue.message,
    }));
    throw new WeftError('BAD_INPUT', 'invalid Weft plan', { location: { field }, issues });
  }
  return { text: workflowToWorkflowText(parsed.workflow), from: 'plan' };
}

/** A whole predictions file against WorfBench gold: the report's means in full, its rows bounded. */
async function evalPredictionsFile(
  args: EvalArguments,
  options: ScoreOptions,
  environment: EvalEnvironment,
): Promise<unknown> {
  for (const field of ['predicted', 'predictedFile', 'gold'] as const) {
    if (args[field] !== undefined) throw badArgument(field, 'does not go with predictionsFile (give goldFile)');
  }
  const file = args.predictionsFile!;
  if (args.goldFile === undefined) throw badArgument('goldFile', 'predictionsFile is scored against goldFile');
  const text = await readInputFile(file, 'predictions file', MAX_PREDICTIONS_FILE_BYTES);
  // Counted before parsing: 100 MB of `{}` lines is 33 million records, whose parse ran the server out of memory.
  const counted = nonBlankLines(text);
  if (counted > MAX_EVAL_PREDICTIONS) {
    throw new WeftError(
      'BAD_INPUT',
      `${counted} prediction lines; weft_eval scores at most ${MAX_EVAL_PREDICTIONS} (\`weft eval\` takes any number)`,
      { location: { file, field: 'predictionsFile' } },
    );
  }
  const read = parsePredictions(text, file);
  const lines = read.predictions.length + read.skipped.length;
  if (lines === 0) {
    throw new WeftError('BAD_INPUT', 'no predictions: the file has no lines', {
      location: { file, field: 'predictionsFile' },
    });
  }
  if (lines > MAX_EVAL_PREDICTIONS) {
    throw new WeftError(
      'BAD_INPUT',
      `${lines} prediction lines; weft_eval scores at most ${MAX_EVAL_PREDICTIONS} (\`weft eval\` takes any number)`,
      { location: { file, field: 'predictionsFile' } },
    );
  }
  // A named pipe would block the read for ever (loadGold reads what it is given): refused, as the other files are.
  const goldInfo = await stat(args.goldFile).catch(() => undefined);
  if (goldInfo && !goldInfo.isFile() && !goldInfo.isDirectory()) {
    throw new WeftError('BAD_INPUT', 'not a file or folder of WorfBench gold data', {
      location: { file: args.goldFile, field: 'goldFile' },
    });
  }
  const records = await loadGold(args.goldFile);
  const similarity = await createSimilarity(args.similarity ?? 'lexical', {
    corpus: records.flatMap((record) => record.workflow.nodes),
    cacheDir: join(environment.home, 'cache', 'embeddings'),
    env: environment.env,
  });
  try {
    const report = await evaluatePredictions({
      gold: records,
      predictions: read.predictions,
      skipped: read.skipped,
      similarity,
      options,
      file,
      signal: environment.signal,
    });
    const listed = args.samples ?? DEFAULT_LISTED_SAMPLES;
    return {
      ...report,
      similarity: redactModelSpec(report.similarity),
      samples: report.samples.slice(0, listed),
      skips: report.skips.slice(0, listed),
      // Says the lists were cut, so a client does not take them for the whole file.
      listed: { samples: Math.min(listed, report.samples.length), skips: Math.min(listed, report.skips.length) },
    };
  } finally {
    await similarity.close?.();
  }
}

/** The lines of `text` holding more than white space (what a JSON Lines reader parses), without splitting it. */
function nonBlankLines(text: string): number {
  let count = 0;
  let blank = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) {
      if (!blank) count += 1;
      blank = true;
    } else if (blank && code !== 32 && code !== 9 && code !== 13) blank = false;
  }
  return blank ? count : count + 1;
}

/** Whether collections in `value` nest deeper than `limit`; walked with an explicit stack, so any depth is safe. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: { item: unknown; depth: number }[] = [{ item: value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.item === null || typeof next.item !== 'object') continue;
    if (next.depth >= limit) return true;
    for (const child of Object.values(next.item)) pending.push({ item: child, depth: next.depth + 1 });
  }
  return false;
}

function badArgument(field: string, message: string): WeftError {
  return new WeftError('BAD_INPUT', message, { location: { field } });
}
