/**
 * Eval reports for the dashboard (pure): the JSON a Weft evaluation prints with `--json` (or `weft bench
 * worfbench`'s `scores.json`), recognised by its fields, checked, and turned into what the page draws — numbers,
 * tables (per scenario, per variant, per item) and F1 histograms. A file that is not JSON, or not a report Weft
 * knows, or a report with a bad field is a `problem` naming the place (`file:line:column field: message`), never
 * an exception.
 */
import { z } from 'zod';
import { findJsonSyntaxError } from '../text/json-syntax.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { formatFieldPath, positionAtOffset, type FieldPath } from '../text/source-locator.js';

export type ReportKind = 'worfeval' | 'worfbench' | 'workflow-pair' | 'team-eval' | 'dialog-eval' | 'distill-eval';

/** A table cell: a value, or a link to a file the report keeps (relative to the report's folder). */
export type ReportCell = string | number | null | { readonly text: string; readonly file: string };

export interface ReportTable {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly ReportCell[])[];
  /** Rows left out (a table shows at most MAX_ROWS). */
  readonly more?: number;
}

export interface ReportHistogram {
  readonly title: string;
  /** Bin i covers [i/bins, (i+1)/bins), the last one includes 1. */
  readonly bins: number;
  readonly series: readonly { readonly name: string; readonly counts: readonly number[] }[];
}

export interface ShownReport {
  readonly kind: ReportKind;
  /** Which command wrote it. */
  readonly title: string;
  readonly stats: readonly { readonly label: string; readonly value: string | number }[];
  readonly tables: readonly ReportTable[];
  readonly histograms: readonly ReportHistogram[];
  /**
   * The files the report links (paths relative to its folder: `weft distill eval --out`'s workflows, traces and
   * results); the dashboard serves these and no other file (report-routes.ts).
   */
  readonly files?: readonly string[];
}

export type ReadReport = { readonly report: ShownReport } | { readonly problem: string };

export const MAX_ROWS = 1_000;
export const HISTOGRAM_BINS = 10;

const num = z.number().finite();
const group = z.looseObject({ count: num, f1_chain: num, f1_graph: num });
const worfeval = z.looseObject({
  count: num,
  skipped: num.optional(),
  f1_chain: num,
  f1_graph: num,
  byScenario: z.record(z.string(), group),
  samples: z.array(z.looseObject({ id: z.string(), f1_chain: num, f1_graph: num, scenario: z.string().optional() })),
  similarity: z.string().optional(),
  missing: num.optional(),
});
const worfbench = z.looseObject({
  planner: z.string(),
  model: z.string().optional(),
  records: num.optional(),
  report: worfeval.nullable(),
});
const pair = z.looseObject({
  gold: z.looseObject({ file: z.string().optional(), name: z.string().optional(), steps: num.optional() }),
  predicted: z.looseObject({ file: z.string().optional(), name: z.string().optional(), steps: num.optional() }),
  f1_chain: num,
  p_chain: num,
  r_chain: num,
  f1_graph: num,
  p_graph: num,
  r_graph: num,
  similarity: z.string().optional(),
});
const teamEval = z.looseObject({
  team: z.string(),
  accuracy: num,
  correct: num,
  total: num,
  calls: num.optional(),
  failed: num.optional(),
  perItem: z.array(
    z.looseObject({
      id: z.union([z.string(), z.number()]),
      correct: z.boolean(),
      answer: z.unknown().optional(),
      expected: z.unknown().optional(),
      calls: num.optional(),
      stopReason: z.string().optional(),
      error: z.string().optional(),
    }),
  ),
});
const scores = z.looseObject({ precision: num, recall: num, f1: num });
const turnSummary = z.looseObject({ turns: num, passRate: num, toolTurns: num, tool: scores, params: scores });
const dialogEval = turnSummary.extend({
  procedure: z.string(),
  byOow: z.looseObject({ none: turnSummary, oow: turnSummary }),
  calls: num.optional(),
  costUsd: num.optional(),
  simulated: z.boolean().optional(),
});
/**
 * A file a report links: relative, forward slashes, no `.` or `..` part, nothing a path could use to leave the
 * report's folder.
 */
const linkedFile = z
  .string()
  .max(1_000)
  .refine(
    (path) =>
      path !== '' &&
      !path.startsWith('/') &&
      !/[\\\u0000:]/.test(path) &&
      path.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
    "a path inside the report's folder (relative, with / and no . or .. part)",
  );
const worfColumn = z.looseObject({ f1_chain: num, f1_graph: num });

const distillEval = z.looseObject({
  suite: z.string(),
  model: z.string().optional(),
  variants: z.array(
    z.looseObject({
      variant: z.string(),
      tasks: num,
      correct: num,
      caseRate: num,
      tests: num,
      passed: num,
      testPassRate: num,
      executionCompleteness: num.optional(),
      graphValidity: num.optional(),
      worf: worfColumn.nullable().optional(),
      errors: num.optional(),
    }),
  ),
  tasks: z.array(
    z.looseObject({
      task: z.string(),
      variant: z.string(),
      tests: num,
      passed: num,
      passRate: num,
      correct: z.boolean(),
      graphValid: z.boolean().optional(),
      worf: worfColumn.optional(),
      files: z.record(z.string(), linkedFile).optional(),
      error: z.string().optional(),
    }),
  ),
});

const KNOWN =
  'expected the --json of weft eval, weft bench worfbench (or its scores.json), weft team eval, weft dialog eval or weft distill eval';

/** Reads one report's text; `file` names it in problems. */
export function readEvalReport(text: string, file: string): ReadReport {
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    const syntax = findJsonSyntaxError(text);
    if (syntax) {
      const { line, column } = positionAtOffset(text, syntax.offset);
      return { problem: `${file}:${line}:${column}: not JSON: ${syntax.message}` };
    }
    return { problem: `${file}: not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: `${file}: not a report Weft knows (${KNOWN})` };
  const has = (...keys: string[]) => keys.every((key) => key in (value as object));
  const check = <T>(schema: z.ZodType<T>, shown: (data: T) => ShownReport): ReadReport => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { report: shown(parsed.data) };
    const issue = parsed.error.issues[0]!;
    return { problem: located(text, file, issue.path as FieldPath, issue.message) };
  };
  if (has('byScenario', 'samples'))
    return check(worfeval, (data) => shownWorfeval(data, 'weft eval (WorfEval)', 'worfeval'));
  if (has('planner', 'report')) return check(worfbench, shownWorfbench);
  if (has('gold', 'predicted', 'f1_chain')) return check(pair, shownPair);
  if (has('team', 'perItem')) return check(teamEval, shownTeamEval);
  if (has('procedure', 'byOow')) return check(dialogEval, shownDialogEval);
  if (has('suite', 'variants')) return check(distillEval, shownDistillEval);
  return { problem: `${file}: not a report Weft knows (${KNOWN})` };
}

/** Where a field is in the text: found again through the YAML reader only now, for the one problem. */
function located(text: string, file: string, path: FieldPath, message: string): string {
  const field = formatFieldPath(path);
  let where = file;
  try {
    const source = readStructuredSource(text, file);
    const position = 'positionOf' in source ? source.positionOf(path) : undefined;
    if (position) where = `${file}:${position.line}:${position.column}`;
  } catch {
    // The place is a courtesy; the message stands without it.
  }
  return `${where}${field ? ` ${field}` : ''}: ${message}`;
}

/** Counts of values in [0, 1] in `bins` equal bins; 1 falls in the last; values outside are clamped. */
export function histogram(values: Iterable<number>, bins = HISTOGRAM_BINS): number[] {
  const counts = new Array<number>(bins).fill(0);
  for (const value of values) {
    if (!Number.isFinite(value)) continue;
    const bin = Math.min(bins - 1, Math.max(0, Math.floor(value * bins)));
    counts[bin]! += 1;
  }
  return counts;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function capped(title: string, columns: string[], rows: ReportCell[][]): ReportTable {
  return {
    title,
    columns,
    rows: rows.slice(0, MAX_ROWS),
    ...(rows.length > MAX_ROWS ? { more: rows.length - MAX_ROWS } : {}),
  };
}

function shownWorfeval(data: z.infer<typeof worfeval>, title: string, kind: ReportKind): ShownReport {
  return {
    kind,
    title,
    stats: [
      { label: 'scored', value: data.count },
      ...(data.skipped !== undefined ? [{ label: 'skipped', value: data.skipped }] : []),
      ...(data.missing !== undefined ? [{ label: 'missing', value: data.missing }] : []),
      { label: 'f1 chain', value: round(data.f1_chain) },
      { label: 'f1 graph', value: round(data.f1_graph) },
      ...(data.similarity !== undefined ? [{ label: 'similarity', value: data.similarity }] : []),
    ],
    tables: [
      capped(
        'By scenario',
        ['scenario', 'count', 'f1 chain', 'f1 graph'],
        Object.entries(data.byScenario).map(([name, score]) => [
          name,
          score.count,
          round(score.f1_chain),
          round(score.f1_graph),
        ]),
      ),
      capped(
        'Samples',
        ['id', 'scenario', 'f1 chain', 'f1 graph'],
        data.samples.map((sample) => [
          sample.id,
          sample.scenario ?? null,
          round(sample.f1_chain),
          round(sample.f1_graph),
        ]),
      ),
    ],
    histograms: [
      {
        title: 'F1 over samples',
        bins: HISTOGRAM_BINS,
        series: [
          { name: 'f1 chain', counts: histogram(data.samples.map((sample) => sample.f1_chain)) },
          { name: 'f1 graph', counts: histogram(data.samples.map((sample) => sample.f1_graph)) },
        ],
      },
    ],
  };
}

function shownWorfbench(data: z.infer<typeof worfbench>): ShownReport {
  const head = [
    { label: 'planner', value: data.planner },
    ...(data.model !== undefined ? [{ label: 'model', value: data.model }] : []),
    ...(data.records !== undefined ? [{ label: 'records', value: data.records }] : []),
  ];
  if (!data.report)
    return {
      kind: 'worfbench',
      title: 'weft bench worfbench (not scored: cancelled)',
      stats: head,
      tables: [],
      histograms: [],
    };
  const inner = shownWorfeval(data.report, 'weft bench worfbench', 'worfbench');
  return { ...inner, stats: [...head, ...inner.stats] };
}

function shownPair(data: z.infer<typeof pair>): ShownReport {
  return {
    kind: 'workflow-pair',
    title: 'weft eval (two workflows)',
    // The scores as numbers too, not only in the table: the reports list shows a report's numeric stats.
    stats: [
      { label: 'f1 chain', value: round(data.f1_chain) },
      { label: 'f1 graph', value: round(data.f1_graph) },
      { label: 'gold', value: data.gold.name ?? data.gold.file ?? '' },
      { label: 'predicted', value: data.predicted.name ?? data.predicted.file ?? '' },
      ...(data.similarity !== undefined ? [{ label: 'similarity', value: data.similarity }] : []),
    ],
    tables: [
      {
        title: 'Scores',
        columns: ['', 'precision', 'recall', 'f1'],
        rows: [
          ['chain', round(data.p_chain), round(data.r_chain), round(data.f1_chain)],
          ['graph', round(data.p_graph), round(data.r_graph), round(data.f1_graph)],
        ],
      },
    ],
    histograms: [],
  };
}

function shownTeamEval(data: z.infer<typeof teamEval>): ShownReport {
  return {
    kind: 'team-eval',
    title: 'weft team eval',
    stats: [
      { label: 'team', value: data.team },
      { label: 'accuracy', value: round(data.accuracy) },
      { label: 'correct', value: `${data.correct} / ${data.total}` },
      ...(data.calls !== undefined ? [{ label: 'calls', value: data.calls }] : []),
      ...(data.failed !== undefined ? [{ label: 'failed', value: data.failed }] : []),
    ],
    tables: [
      capped(
        'Items',
        ['id', 'correct', 'answer', 'expected', 'calls', 'stop'],
        data.perItem.map((item) => [
          String(item.id),
          item.correct ? 'yes' : 'no',
          short(item.answer),
          short(item.expected),
          item.calls ?? null,
          item.error !== undefined ? `failed: ${short(item.error)}` : (item.stopReason ?? null),
        ]),
      ),
    ],
    histograms: [],
  };
}

function shownDialogEval(data: z.infer<typeof dialogEval>): ShownReport {
  const row = (label: string, summary: z.infer<typeof turnSummary>) => [
    label,
    summary.turns,
    round(summary.passRate),
    summary.toolTurns,
    ...(summary.toolTurns > 0
      ? [
          round(summary.tool.f1),
          round(summary.params.precision),
          round(summary.params.recall),
          round(summary.params.f1),
        ]
      : [null, null, null, null]),
  ];
  return {
    kind: 'dialog-eval',
    title: 'weft dialog eval',
    stats: [
      { label: 'procedure', value: data.procedure },
      { label: 'pass rate', value: round(data.passRate) },
      ...(data.calls !== undefined ? [{ label: 'calls', value: data.calls }] : []),
      ...(data.simulated ? [{ label: 'models', value: 'simulated' }] : []),
    ],
    tables: [
      {
        title: 'Turns',
        columns: ['', 'turns', 'pass rate', 'tool turns', 'tool f1', 'params p', 'params r', 'params f1'],
        rows: [row('all', data), row('in-workflow', data.byOow.none), row('out-of-workflow', data.byOow.oow)],
      },
    ],
    histograms: [],
  };
}

/** The files a distill eval's task run links, in the order its Tasks table shows them. */
const LINKED = [
  ['workflow', 'workflow'],
  ['traces', 'traces'],
  ['selectedTraces', 'selected'],
  ['results', 'results'],
  ['summary', 'summary'],
] as const;

function shownDistillEval(data: z.infer<typeof distillEval>): ShownReport {
  const f1 = (value: number | undefined) => (value === undefined ? null : round(value));
  const linked = data.tasks.some((task) => task.files !== undefined);
  const files = [...new Set(data.tasks.flatMap((task) => Object.values(task.files ?? {})))];
  const tests = data.tasks.reduce((sum, task) => sum + task.tests, 0);
  const passed = data.tasks.reduce((sum, task) => sum + task.passed, 0);
  return {
    kind: 'distill-eval',
    title: 'weft distill eval',
    stats: [
      { label: 'suite', value: data.suite },
      ...(data.model ? [{ label: 'model', value: data.model }] : []),
      // Over every task run of every variant (the Variants table has each variant's own).
      { label: 'task runs', value: data.tasks.length },
      { label: 'correct', value: data.tasks.filter((task) => task.correct).length },
      ...(tests > 0 ? [{ label: 'test pass rate', value: round(passed / tests) }] : []),
    ],
    tables: [
      capped(
        'Variants',
        ['variant', 'tasks', 'correct', 'CRate', 'tests', 'passed', 'TRate', 'f1 chain', 'f1 graph', 'errors'],
        data.variants.map((variant) => [
          variant.variant,
          variant.tasks,
          variant.correct,
          round(variant.caseRate),
          variant.tests,
          variant.passed,
          round(variant.testPassRate),
          f1(variant.worf?.f1_chain),
          f1(variant.worf?.f1_graph),
          variant.errors ?? null,
        ]),
      ),
      capped(
        'Tasks',
        [
          'task',
          'variant',
          'tests',
          'passed',
          'pass rate',
          'correct',
          'f1 chain',
          'f1 graph',
          ...(linked ? LINKED.map(([, label]) => label) : []),
        ],
        data.tasks.map((task) => [
          task.task,
          task.variant,
          task.tests,
          task.passed,
          round(task.passRate),
          task.error !== undefined ? `error: ${short(task.error)}` : task.correct ? 'yes' : 'no',
          f1(task.worf?.f1_chain),
          f1(task.worf?.f1_graph),
          ...(linked
            ? LINKED.map(([key, label]) => {
                const file = task.files?.[key];
                return file === undefined ? null : { text: label, file };
              })
            : []),
        ]),
      ),
    ],
    histograms: [
      {
        title: 'Test pass rate over tasks',
        bins: HISTOGRAM_BINS,
        series: [...new Set(data.tasks.map((task) => task.variant))].map((variant) => ({
          name: variant,
          counts: histogram(data.tasks.filter((task) => task.variant === variant).map((task) => task.passRate)),
        })),
      },
    ],
    ...(files.length > 0 ? { files } : {}),
  };
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
