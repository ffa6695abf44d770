/**
 * `weft dialog eval FILE.pdl.yaml --references R.jsonl --model M --judge J`: turn-level evaluation with teacher
 * forcing — the bot predicts each bot move of the reference sessions from the reference prefix, a judge compares
 * (docs/dialog-evaluation.md). Tools are optional: only their declarations are used, and the PDL declares the ones missing.
 */
import {
  evaluateTurns,
  loadReferenceSessions,
  traceWorkflow,
  type TurnEvalReport,
  type TurnSummary,
  formatError,
} from '../../internal.js';
import { loadContext, requireValue } from '../context.js';
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
import { integerFlag } from '../flags.js';
import type { Output } from '../output.js';
import { budgetErrorJson, reportBudgetStop } from '../budget-stop.js';
import { BUDGET_FLAG_FIELDS, budgetFromFlags } from '../run-choices.js';
import { progressLogger } from '../team/team-command-support.js';
import type { BudgetFlags } from '../budget-options.js';

/** Budget flags (BudgetFlags), as `weft run` takes them, for the whole batch (every model's calls count). */
export interface DialogEvalFlags extends BudgetFlags {
  readonly references?: string;
  readonly model?: string;
  readonly judge?: string;
  readonly tools?: string;
  readonly simulateApis?: boolean;
  readonly apiModel?: string;
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
  const budget = budgetFromFlags(flags);
  const context = await loadContext(flags, env);
  const models = await loadDialogModels(
    { bot: flags.model, judge: judgeSpec, ...(flags.apiModel !== undefined ? { api: flags.apiModel } : {}) },
    context,
    env,
  );
  const [bot, judge, apiModel] = models.map((entry) => entry.model);
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
          ...(flags.simulateApis ? { simulateApis: true } : {}),
          ...(apiModel ? { apiModel } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
          costOf: costByModel(models),
          ...(budget ? { budget, budgetFields: BUDGET_FLAG_FIELDS } : {}),
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
    const budgetError = reportBudgetStop(report.budget, output, 'eval', 'moves');
    if (output.json)
      output.document({
        procedure: procedure.pdl.name,
        models: modelsDocument(models),
        ...report,
        ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}),
      });
    else for (const line of formatTurnEval(report, models)) output.text(line);
    if (budgetError) {
      output.log(`weft: ${formatError(budgetError)}`);
      return 1;
    }
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
  const paper = report.paper;
  const paperRow = (label: string, group: { turns: number; passRate: number; meanScore: number }, all: boolean) => [
    label,
    String(group.turns),
    group.turns > 0 ? fixed(group.passRate) : '–',
    group.turns > 0 ? group.meanScore.toFixed(2) : '–',
    ...(all
      ? [
          fixed(paper.toolPrecision),
          fixed(paper.toolRecall),
          fixed(paper.toolF1),
          fixed(paper.paramsPrecision),
          fixed(paper.paramsRecall),
          fixed(paper.paramsF1),
        ]
      : ['', '', '', '', '', '']),
  ];
  return [
    ...(report.simulated ? ['simulated: the numbers describe a simulation with sim or scripted models'] : []),
    ...(report.simulatedResults > 0
      ? [
          `${report.simulatedResults} reference API ${report.simulatedResults === 1 ? 'call was' : 'calls were'} answered by a simulated API (--simulate-apis)`,
        ]
      : []),
    "Weft's protocol: pass = the judge finds the move consistent with the reference; a move is out of workflow when its turn began with an out-of-workflow message",
    ...table(
      ['turns', 'n', 'pass rate', 'tool turns', 'tool P', 'tool R', 'tool F1', 'param P', 'param R', 'param F1'],
      [row('all', report), row('in-workflow', report.byOow.none), row('out-of-workflow', report.byOow.oow)],
    ),
    "the FlowAgent paper's protocol: pass = a score of 9 or more out of 10; mean score over sessions; parameters compared as sets of values; only the move right after an out-of-workflow message is out of workflow",
    ...table(
      [
        'turns (paper)',
        'n',
        'pass rate',
        'mean score',
        'tool P',
        'tool R',
        'tool F1',
        'param P',
        'param R',
        'param F1',
      ],
      [
        paperRow('all', { turns: report.turns, passRate: paper.passRate, meanScore: paper.meanScore }, true),
        paperRow('in-workflow', paper.iw, false),
        paperRow('out-of-workflow', paper.oow, false),
      ],
    ),
    `calls: ${report.calls}; cost: $${report.costUsd.toFixed(4)}${report.errors > 0 ? `; ${report.errors} ${report.errors === 1 ? 'move' : 'moves'} failed (left out; see --json)` : ''}`,
    ...dialogModelLines(models),
  ];
}
