/**
 * `weft dialog eval FILE.pdl.yaml --references R.jsonl --model M --judge J`: turn-level evaluation with teacher
 * forcing — the bot predicts each bot move of the reference sessions from the reference prefix, a judge compares
 * (SPEC §4.3). Tools are optional: only their declarations are used, and the PDL declares the ones missing.
 */
import {
  evaluateTurns,
  loadReferenceSessions,
  traceWorkflow,
  type TurnEvalReport,
  type TurnSummary,
} from '../index.js';
import { loadContext, requireValue } from './context.js';
import {
  controllerModeOf,
  costByModel,
  dialogModelLines,
  fixed,
  loadDialogModels,
  loadProcedure,
  modelsDocument,
  table,
  type DialogModel,
} from './dialog-command-support.js';
import { integerFlag } from './flags.js';
import type { Output } from './output.js';
import { progressLogger } from './team-command-support.js';

export interface DialogEvalFlags {
  readonly references?: string;
  readonly model?: string;
  readonly judge?: string;
  readonly tools?: string;
  readonly concurrency?: string;
  /** false with `--no-controllers` (no pre-decision guidance). */
  readonly controllers?: boolean;
  readonly home?: string;
  readonly json?: boolean;
}

export async function dialogEvalCommand(
  file: string,
  flags: DialogEvalFlags,
  output: Output,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const referencesFile = requireValue(flags.references, '--references');
  const judgeSpec = requireValue(flags.judge, '--judge');
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const controllerMode = controllerModeOf(flags);
  const context = await loadContext(flags, env);
  const models = await loadDialogModels({ bot: flags.model, judge: judgeSpec }, context, env);
  const [bot, judge] = models.map((entry) => entry.model);
  const references = await loadReferenceSessions(referencesFile);
  const procedure = await loadProcedure(file, { toolsFile: flags.tools }, signal);
  try {
    const moves = references.reduce(
      (sum, reference) => sum + reference.messages.filter((message) => message.role === 'bot').length,
      0,
    );
    output.log(
      `evaluating ${moves} bot ${moves === 1 ? 'move' : 'moves'} of ${references.length} reference ${references.length === 1 ? 'session' : 'sessions'} on "${procedure.pdl.name}"`,
    );
    const progress = progressLogger('eval', output);
    let passed = 0;
    let judged = 0;
    // With tracing on: one `invoke_workflow` span over every move (the bot's and the judge's calls inside).
    const report = await traceWorkflow(
      { attributes: { 'weft.command': 'dialog eval', 'weft.procedure': procedure.pdl.name, 'weft.moves': moves } },
      () =>
        evaluateTurns(procedure.pdl, references, {
          model: bot!,
          judge: judge!,
          ...(procedure.toolSet ? { tools: procedure.toolSet } : {}),
          controllerMode,
          ...(concurrency !== undefined ? { concurrency } : {}),
          costOf: costByModel(models),
          signal,
          onProgress: ({ done, total, turn }) => {
            if (turn.error !== undefined) output.log(`eval: ${turn.session} move ${turn.index} failed: ${turn.error}`);
            else {
              judged += 1;
              if (turn.consistent) passed += 1;
            }
            progress(done, total, `pass rate so far ${judged === 0 ? '–' : fixed(passed / judged)}`);
          },
        }),
    );
    if (report.cancelled)
      output.log(
        `eval cancelled: the report covers the ${report.cancelled.finished} of ${report.cancelled.of} moves that finished`,
      );
    if (output.json)
      output.document({
        procedure: procedure.pdl.name,
        models: modelsDocument(models),
        ...report,
      });
    else for (const line of formatTurnEval(report, models)) output.text(line);
    return report.cancelled || report.errors > 0 ? 1 : 0;
  } finally {
    await procedure.toolSet?.close();
  }
}

export function formatTurnEval(report: TurnEvalReport, models: readonly DialogModel[]): string[] {
  const row = (label: string, summary: TurnSummary): string[] => {
    const tools = summary.toolTurns > 0;
    const score = (value: number) => (tools ? fixed(value) : '–');
    return [
      label,
      String(summary.turns),
      summary.turns > 0 ? fixed(summary.passRate) : '–',
      String(summary.toolTurns),
      score(summary.tool.precision),
      score(summary.tool.recall),
      score(summary.tool.f1),
      score(summary.params.precision),
      score(summary.params.recall),
      score(summary.params.f1),
    ];
  };
  return [
    ...(report.simulated ? ['simulated: the numbers describe a simulation with sim or scripted models'] : []),
    ...table(
      ['turns', 'n', 'pass rate', 'tool turns', 'tool P', 'tool R', 'tool F1', 'param P', 'param R', 'param F1'],
      [row('all', report), row('in-workflow', report.byOow.none), row('out-of-workflow', report.byOow.oow)],
    ),
    `calls: ${report.calls}; cost: $${report.costUsd.toFixed(4)}${report.errors > 0 ? `; ${report.errors} ${report.errors === 1 ? 'move' : 'moves'} failed (left out; see --json)` : ''}`,
    ...dialogModelLines(models),
  ];
}
