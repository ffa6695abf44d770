/**
 * `weft eval <predictions.jsonl> --gold <file|dir>`: WorfEval scores of predicted workflows against WorfBench
 * gold. The similarity's name is printed first, so a lexical score is never mistaken for the paper's
 * embedding-based one. Exit 0 whenever the evaluation ran (skipped lines included), 2 on bad input (a file without
 * a single prediction line included). `weft eval pred.workflow.json --gold ref.workflow.json`: the same scores for
 * one executable workflow against a reference one, both read as WorfBench text.
 */
import { join } from 'node:path';
import {
  compareWorkflows,
  createSimilarity,
  DEFAULT_BETA,
  DEFAULT_MAX_ORDERS,
  DEFAULT_MCIS_TIME_LIMIT_MS,
  evaluatePredictions,
  inertText,
  loadGold,
  loadWorkflowFile,
  formatWorkflowText,
  readPredictions,
  resolveHome,
  WeftError,
  type EvalReport,
  type GroupScore,
  type SampleScore,
  type ScoreOptions,
  type WorkflowText,
  workflowFileKind,
  workflowToWorfText,
} from '../../internal.js';
import { requireValue } from '../context.js';
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';

export interface EvalFlags {
  readonly gold?: string;
  readonly similarity?: string;
  readonly beta?: string;
  readonly maxOrders?: string;
  readonly mcisTimeLimit?: string;
  readonly concurrency?: string;
  readonly home?: string;
  readonly json?: boolean;
}

/** Skipped lines shown in the human summary; `--json` lists them all. */
const SHOWN_SKIPS = 5;
/** Progress goes to stderr only for evaluations that take longer than this, then at most this often. */
const PROGRESS_INTERVAL_MS = 2000;

export async function evalCommand(
  predictionsFile: string,
  flags: EvalFlags,
  output: Output,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const gold = requireValue(flags.gold, '--gold');
  const options = scoreOptions(flags);
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const home = resolveHome({ ...(flags.home !== undefined ? { flag: flags.home } : {}), env, cwd: process.cwd() });

  const [predictedKind, goldKind] = await Promise.all([workflowFileKind(predictionsFile), workflowFileKind(gold)]);
  if (predictedKind === 'workflow' || goldKind === 'workflow') {
    if (predictedKind !== 'workflow' || goldKind !== 'workflow') {
      const [is, isNot, kind] =
        predictedKind === 'workflow' ? [predictionsFile, gold, goldKind] : [gold, predictionsFile, predictedKind];
      // A workflow file that does not parse says where, rather than only that it is not a workflow.
      if (kind === 'unreadable') await loadWorkflowFile(isNot);
      throw new WeftError(
        'BAD_INPUT',
        `not an executable workflow (a .json or .yaml file with "nodes"), while ${is} is one: score a workflow against a workflow, or WorfBench predictions against WorfBench gold`,
        { location: { file: isNot, ...(predictedKind === 'workflow' ? { field: '--gold' } : {}) } },
      );
    }
    return evalWorkflowPair(predictionsFile, gold, flags, options, output, home, env, signal);
  }

  // The predictions first: a mistyped path is the likelier mistake, and reading it is cheap.
  const read = await readPredictions(predictionsFile);
  const records = await loadGold(gold);
  const similarity = await createSimilarity(flags.similarity ?? 'lexical', {
    corpus: records.flatMap((record) => record.workflow.nodes),
    cacheDir: join(home, 'cache', 'embeddings'),
    env,
  });
  let report: EvalReport;
  try {
    // Nothing to score is not an evaluation: a mean over zero samples would read as a score of 0. Checked after
    // the flags, gold and similarity, so every other problem is reported first.
    if (read.predictions.length === 0 && read.skipped.length === 0) {
      throw new WeftError(
        'BAD_INPUT',
        'no predictions: the file has no lines; expected one {"id": …, "output": "<workflow text>"} per line',
        { location: { file: predictionsFile } },
      );
    }
    const started = Date.now();
    let lastProgress = started;
    report = await evaluatePredictions({
      gold: records,
      predictions: read.predictions,
      skipped: read.skipped,
      similarity,
      options,
      file: predictionsFile,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(signal ? { signal } : {}),
      onProgress: (done, total) => {
        const now = Date.now();
        if (now - lastProgress < PROGRESS_INTERVAL_MS && done < total) return;
        if (done === total && now - started < PROGRESS_INTERVAL_MS) return;
        lastProgress = now;
        output.log(
          `scored ${done}/${total} (${Math.floor((100 * done) / total)}%, ${((now - started) / 1000).toFixed(1)} s)`,
        );
      },
    });
  } finally {
    await similarity.close?.();
  }

  if (output.json) {
    output.document(report);
    return 0;
  }
  for (const line of formatReport(report, {
    lexical: similarity.kind === 'lexical',
    gold,
    predictions: predictionsFile,
    goldCount: records.length,
  }))
    output.text(line);
  return 0;
}

/** One executable workflow against a reference one: the sample's WorfEval scores, with both WorfBench texts. */
async function evalWorkflowPair(
  predictedFile: string,
  goldFile: string,
  flags: EvalFlags,
  options: ScoreOptions,
  output: Output,
  home: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): Promise<number> {
  const predicted = (await loadWorkflowFile(predictedFile)).workflow;
  const gold = (await loadWorkflowFile(goldFile)).workflow;
  // The idf is fitted on the gold's texts, as for WorfBench gold.
  const similarity = await createSimilarity(flags.similarity ?? 'lexical', {
    corpus: workflowToWorfText(gold).nodes,
    cacheDir: join(home, 'cache', 'embeddings'),
    env,
  });
  let comparison: Awaited<ReturnType<typeof compareWorkflows>>;
  try {
    comparison = await compareWorkflows(gold, predicted, similarity, { ...options, ...(signal ? { signal } : {}) });
  } catch (error) {
    // The library names the side; the user knows the file.
    if (error instanceof WeftError && error.code === 'BAD_INPUT' && error.location?.field) {
      const file = error.location.field === 'gold' ? goldFile : predictedFile;
      throw new WeftError('BAD_INPUT', error.message, { location: { file } });
    }
    throw error;
  } finally {
    await similarity.close?.();
  }
  const settings = {
    similarity: similarity.name,
    beta: options.beta ?? DEFAULT_BETA,
    maxOrders: options.maxOrders ?? DEFAULT_MAX_ORDERS,
    mcisTimeLimitMs: options.mcisTimeLimitMs ?? DEFAULT_MCIS_TIME_LIMIT_MS,
  };
  const side = (file: string, name: string, text: WorkflowText) => ({
    file,
    name,
    steps: text.nodes.length,
    text: formatWorkflowText(text),
  });
  if (output.json) {
    output.document({
      ...settings,
      gold: side(goldFile, gold.name, comparison.gold),
      predicted: side(predictedFile, predicted.name, comparison.predicted),
      ...comparison.score,
    });
    return 0;
  }
  const { score } = comparison;
  const lines = [`similarity: ${settings.similarity}`];
  if (similarity.kind === 'lexical' && !/not comparable/i.test(settings.similarity)) {
    lines.push(
      "  (a lexical stand-in for the paper's Sentence-BERT embeddings: do not compare these scores with published ones)",
    );
  }
  lines.push(
    `β ${settings.beta} · up to ${settings.maxOrders} gold orders for f1_chain · MCIS time limit ${settings.mcisTimeLimitMs} ms`,
    `gold: ${goldFile} (${gold.name}, ${count(comparison.gold.nodes.length, 'step')}); predicted: ${predictedFile} (${predicted.name}, ${count(comparison.predicted.nodes.length, 'step')})`,
    '',
    `${''.padEnd(6)}  ${'precision'.padStart(9)}  ${'recall'.padStart(8)}  ${'f1'.padStart(8)}`,
    ...(['chain', 'graph'] as const).map((kind) => {
      const [p, r, f] = pickScores(score, kind);
      return `${kind.padEnd(6)}  ${fixed(p).padStart(9)}  ${fixed(r).padStart(8)}  ${fixed(f).padStart(8)}`;
    }),
    '',
    `${score.matched} of ${count(comparison.gold.nodes.length, 'gold step')} matched${score.mcisExact ? '' : ' · MCIS time limit hit: f1_graph is a lower bound'}`,
  );
  // Workflow names are the files' text: shown inert.
  for (const line of lines) output.text(inertText(line));
  return 0;
}

function pickScores(score: SampleScore, kind: 'chain' | 'graph'): [number, number, number] {
  return kind === 'chain'
    ? [score.p_chain, score.r_chain, score.f1_chain]
    : [score.p_graph, score.r_graph, score.f1_graph];
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function scoreOptions(flags: EvalFlags): ScoreOptions {
  let beta: number | undefined;
  if (flags.beta !== undefined) {
    beta = Number(flags.beta.trim());
    if (flags.beta.trim() === '' || !Number.isFinite(beta) || beta <= 0 || beta > 1) {
      throw new WeftError('BAD_INPUT', `--beta expects a number in (0, 1], got "${flags.beta}"`, {
        location: { field: '--beta' },
      });
    }
  }
  const maxOrders = integerFlag('max-orders', flags.maxOrders, { min: 1 });
  const mcisTimeLimitMs = integerFlag('mcis-time-limit', flags.mcisTimeLimit, { min: 1 });
  return {
    ...(beta !== undefined ? { beta } : {}),
    ...(maxOrders !== undefined ? { maxOrders } : {}),
    ...(mcisTimeLimitMs !== undefined ? { mcisTimeLimitMs } : {}),
  };
}

/** The human summary: similarity first, tables by scenario and by source, the means, then the skips. */
export function formatReport(
  report: EvalReport,
  context: { lexical: boolean; gold: string; predictions: string; goldCount: number },
): string[] {
  const lines = [`similarity: ${report.similarity}`];
  // The lexical similarity's own name may already say it; say it once.
  if (context.lexical && !/not comparable/i.test(report.similarity)) {
    lines.push(
      "  (a lexical stand-in for the paper's Sentence-BERT embeddings: do not compare these scores with published ones)",
    );
  }
  lines.push(
    `β ${report.beta} · up to ${report.maxOrders} gold orders for f1_chain · MCIS time limit ${report.mcisTimeLimitMs} ms per sample`,
  );
  lines.push(`gold: ${context.goldCount} records from ${context.gold}; predictions: ${context.predictions}`);
  lines.push('');
  lines.push(...table('scenario', report.byScenario, report));
  lines.push('');
  lines.push(...table('source', report.bySource, report));
  lines.push('');
  lines.push(
    `${report.count} scored · ${report.skipped} skipped · ${report.missing} gold ${report.missing === 1 ? 'record' : 'records'} without a prediction`,
  );
  lines.push(`f1_chain ${fixed(report.f1_chain)} · f1_graph ${fixed(report.f1_graph)} (mean over scored samples)`);
  if (report.skipped > 0) {
    const zero = report.withSkipsAsZero;
    lines.push(
      `f1_chain ${fixed(zero.f1_chain)} · f1_graph ${fixed(zero.f1_graph)} counting the ${zero.count - report.count} gold records with only skipped predictions as 0`,
    );
  }
  if (report.mcisTimeLimitHits.length > 0) {
    const hits = report.mcisTimeLimitHits;
    lines.push(
      `MCIS time limit hit on ${hits.length} ${hits.length === 1 ? 'sample' : 'samples'} (f1_graph is a lower bound there): ${hits.slice(0, 10).join(', ')}${hits.length > 10 ? ', …' : ''}`,
    );
  }
  if (report.skipped > 0) {
    lines.push(
      `skipped lines${report.skipped > SHOWN_SKIPS ? ` (first ${SHOWN_SKIPS} of ${report.skipped}; --json lists all)` : ''}:`,
    );
    for (const skip of report.skips.slice(0, SHOWN_SKIPS)) lines.push(`  ${skip.reason}`);
  }
  return lines;
}

function table(title: string, groups: Readonly<Record<string, GroupScore>>, overall: EvalReport): string[] {
  const width = Math.max(title.length, 'all'.length, ...Object.keys(groups).map((name) => name.length));
  const row = (name: string, count: string, chain: string, graph: string) =>
    `${name.padEnd(width)}  ${count.padStart(7)}  ${chain.padStart(8)}  ${graph.padStart(8)}`;
  return [
    row(title, 'samples', 'f1_chain', 'f1_graph'),
    ...Object.entries(groups).map(([name, group]) =>
      row(name, String(group.count), fixed(group.f1_chain), fixed(group.f1_graph)),
    ),
    row('all', String(overall.count), fixed(overall.f1_chain), fixed(overall.f1_graph)),
  ];
}

function fixed(value: number): string {
  return value.toFixed(4);
}
