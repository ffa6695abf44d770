/**
 * `weft simulate FILE.pdl.yaml --profiles P.jsonl --model M --user-model U --judge J`: simulated users talk to the
 * procedure's bot, a judge scores each session; the report compares in-workflow sessions with each out-of-workflow
 * category (docs/dialog-evaluation.md).
 */
import {
  checkProfileApis,
  loadOowTaxonomy,
  loadProfiles,
  MAX_SESSIONS,
  OOW_ASSIGNMENTS,
  sessionStoreOf,
  simulateSessions,
  type MetricsSummary,
  type SimulationReport,
  WeftError,
  traceWorkflow,
  formatError,
} from '../../internal.js';
import { loadContext, openStore, requireValue } from '../context.js';
import {
  controllerModeOf,
  costByModel,
  dialogModelLines,
  fixed,
  loadDialogModels,
  loadProcedure,
  modelsDocument,
  table,
} from './dialog-command-support.js';
import { choiceFlag, integerFlag, numberFlag } from '../flags.js';
import type { Output } from '../output.js';
import { budgetErrorJson, reportBudgetStop } from '../budget-stop.js';
import { BUDGET_FLAG_FIELDS, budgetFromFlags } from '../run-choices.js';
import { progressLogger } from '../team/team-command-support.js';
import type { BudgetFlags } from '../budget-options.js';

/** Budget flags (BudgetFlags), as `weft run` takes them, for the whole batch (every model's calls count). */
export interface SimulateFlags extends BudgetFlags {
  readonly profiles?: string;
  readonly model?: string;
  readonly userModel?: string;
  readonly judge?: string;
  readonly tools?: string;
  readonly simulateApis?: boolean;
  readonly apiModel?: string;
  readonly oow?: string;
  readonly oowTaxonomy?: string;
  readonly oowAssignment?: string;
  readonly sessions?: string;
  readonly concurrency?: string;
  readonly maxTurns?: string;
  readonly seed?: string;
  /** false with `--no-post-controllers`. */
  readonly postControllers?: boolean;
  /** false with `--no-controllers`. */
  readonly controllers?: boolean;
  /** Keep every session in the store (`weft show-session ID`). */
  readonly keepSessions?: boolean;
  readonly store?: string;
  readonly home?: string;
  readonly json?: boolean;
}

export async function simulateCommand(
  file: string,
  flags: SimulateFlags,
  output: Output,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // Every flag is checked before any file is read or model made.
  const profilesFile = requireValue(flags.profiles, '--profiles');
  const userModelSpec = requireValue(flags.userModel, '--user-model');
  const judgeSpec = requireValue(flags.judge, '--judge');
  const oow = numberFlag('oow', flags.oow, { min: 0, max: 1 });
  const oowAssignment = choiceFlag('oow-assignment', flags.oowAssignment, OOW_ASSIGNMENTS);
  const sessions = integerFlag('sessions', flags.sessions, { min: 1 });
  if (sessions !== undefined && sessions > MAX_SESSIONS)
    throw new WeftError('BAD_INPUT', `--sessions expects at most ${MAX_SESSIONS}, got "${flags.sessions}"`, {
      location: { field: '--sessions' },
    });
  const concurrency = integerFlag('concurrency', flags.concurrency, { min: 1 });
  const maxTurns = integerFlag('max-turns', flags.maxTurns, { min: 1 });
  const seed = integerFlag('seed', flags.seed, { min: 0 });
  const controllerMode = controllerModeOf(flags);
  const budget = budgetFromFlags(flags);
  const context = await loadContext(flags, env);
  const models = await loadDialogModels(
    {
      bot: flags.model,
      user: userModelSpec,
      judge: judgeSpec,
      ...(flags.apiModel !== undefined ? { api: flags.apiModel } : {}),
    },
    context,
    env,
  );
  const [bot, user, judge, apiModel] = models.map((entry) => entry.model);
  const profiles = await loadProfiles(profilesFile);
  const oowTaxonomy = flags.oowTaxonomy === undefined ? undefined : await loadOowTaxonomy(flags.oowTaxonomy);
  const procedure = await loadProcedure(file, { toolsFile: flags.tools }, signal);
  const store = flags.keepSessions
    ? await openStore(context).catch(async (error: unknown) => {
        await procedure.toolSet?.close();
        throw error;
      })
    : undefined;
  try {
    checkProfileApis(profiles, procedure.pdl, profilesFile);
    const total = sessions ?? profiles.length;
    output.log(
      `simulating ${total} ${total === 1 ? 'session' : 'sessions'} of "${procedure.pdl.name}" with ${profiles.length} ${profiles.length === 1 ? 'profile' : 'profiles'}${oow ? `, out-of-workflow turns at ${oow} (${oowAssignment ?? 'per-turn'}${oowTaxonomy ? `, taxonomy ${oowTaxonomy.source}` : ''})` : ''}${controllerMode === 'all' ? '' : controllerMode === 'none' ? ', no controllers' : ', no post-decision controllers'}`,
    );
    const progress = progressLogger('simulate', output);
    let successes = 0;
    let finished = 0;
    // With tracing on: one `invoke_workflow` span over every session (bot, user and judge calls, API calls inside).
    const report = await traceWorkflow(
      { attributes: { 'weft.command': 'simulate', 'weft.procedure': procedure.pdl.name, 'weft.sessions': total } },
      () =>
        simulateSessions(procedure.pdl, {
          profiles,
          model: bot!,
          userModel: user!,
          judge: judge!,
          tools: procedure.toolSet?.tools ?? [],
          ...(flags.simulateApis ? { simulateApis: true } : {}),
          ...(apiModel ? { apiModel } : {}),
          controllerMode,
          ...(oow !== undefined ? { oow } : {}),
          ...(oowTaxonomy ? { oowTaxonomy } : {}),
          ...(oowAssignment ? { oowAssignment } : {}),
          ...(sessions !== undefined ? { sessions } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
          ...(maxTurns !== undefined ? { maxTurns } : {}),
          ...(seed !== undefined ? { seed } : {}),
          costOf: costByModel(models),
          ...(budget ? { budget, budgetFields: BUDGET_FLAG_FIELDS } : {}),
          ...(store ? { store: sessionStoreOf(store) } : {}),
          signal,
          onProgress: ({ done, total: of, session }) => {
            if (session.error !== undefined) output.log(`simulate: session ${session.id} failed: ${session.error}`);
            else {
              finished += 1;
              if (session.success) successes += 1;
            }
            progress(done, of, `success so far ${finished === 0 ? '–' : fixed(successes / finished)}`);
          },
        }),
    );
    if (report.cancelled)
      output.log(
        `simulate cancelled: the report covers the ${report.cancelled.finished} of ${report.cancelled.of} sessions that finished`,
      );
    const budgetError = reportBudgetStop(report.budget, output, 'simulate', 'sessions');
    if (output.json)
      output.document({
        procedure: procedure.pdl.name,
        controllerMode,
        oow: oow ?? 0,
        models: modelsDocument(models),
        ...report,
        ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}),
      });
    else for (const line of formatSimulation(report, models)) output.text(line);
    if (budgetError) {
      output.log(`weft: ${formatError(budgetError)}`);
      return 1;
    }
    return report.cancelled || report.errors > 0 ? 1 : 0;
  } finally {
    await procedure.toolSet?.close();
    await store?.close();
  }
}

export function formatSimulation(report: SimulationReport, models: Parameters<typeof dialogModelLines>[0]): string[] {
  const row = (label: string, summary: MetricsSummary): string[] =>
    summary.sessions === 0
      ? [label, '0', ...Array.from({ length: 10 }, () => '–')]
      : [
          label,
          String(summary.sessions),
          fixed(summary.success),
          fixed(summary.progress),
          orDash(summary.paper.toolF1),
          orDash(summary.toolF1),
          orDash(summary.toolF1Multiset),
          String(summary.violationsProposed),
          String(summary.violationsExecuted),
          String(summary.rejections),
          summary.turns.toFixed(1),
          summary.calls.toFixed(1),
        ];
  const lines = [
    ...(report.simulated ? ['simulated: the numbers describe a simulation with sim or scripted models'] : []),
    ...table(
      [
        'sessions',
        'n',
        'success',
        'progress',
        'tool F1 (paper)',
        'tool F1 (Weft)',
        'F1 multiset',
        'violations proposed',
        'executed',
        'rejections',
        'turns',
        'calls',
      ],
      [
        row('all', report),
        ...Object.entries(report.byOow).map(([group, summary]) => row(groupLabel(report, group), summary)),
      ],
    ),
    ...overlapNote(report),
    "success and progress: the judge, as in the FlowAgent paper; tool F1 (paper): its authors' protocol, micro-averaged over the APIs the bot proposed (refused ones too); tool F1 (Weft): the mean per session over the APIs called, and the same counting repeats (multiset)",
    ...(report.paper.note ? [`tool F1 (paper): ${report.paper.note}`] : []),
    ...(report.paper.toolF1 === null
      ? []
      : [
          `tool (paper): precision ${fixed(report.paper.toolPrecision ?? 0)}, recall ${fixed(report.paper.toolRecall ?? 0)} over ${report.paper.toolSessions} ${report.paper.toolSessions === 1 ? 'session' : 'sessions'}`,
        ]),
    `cost: $${report.costUsd.toFixed(4)}${report.errors > 0 ? `; ${report.errors} ${report.errors === 1 ? 'session' : 'sessions'} failed (left out of the means; see --json)` : ''}`,
    ...dialogModelLines(models),
  ];
  return lines;
}

/**
 * The category rows count a session once in each category it has an out-of-workflow turn of, so they can add up
 * to more than the sessions: said under the table, with the numbers, whenever they do.
 */
function overlapNote(report: SimulationReport): string[] {
  const rows = Object.values(report.byOow).reduce((sum, summary) => sum + summary.sessions, 0);
  if (rows <= report.sessions) return [];
  return [
    `the rows under "all" add up to ${rows}, more than its ${report.sessions} sessions: a session with out-of-workflow turns of several categories counts in each of them`,
  ];
}

function orDash(value: number | null): string {
  return value === null ? '–' : fixed(value);
}

/** A byOow group's row label: `in-workflow`, or the category's name in lower case. */
function groupLabel(report: SimulationReport, group: string): string {
  if (group === 'none') return 'in-workflow';
  return report.oowSetup.categories.find((category) => category.id === group)?.name.toLowerCase() ?? group;
}
