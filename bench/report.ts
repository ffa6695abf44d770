/** What a benchmark reports and how the runner prints it: one table per bench, with goals and PASS/MISS. */

export interface Goal {
  readonly comparison: '<=' | '<' | '>=';
  readonly target: number;
}

export interface ReportRow {
  readonly label: string;
  readonly value: number;
  readonly unit?: string;
  readonly goal?: Goal;
}

export interface BenchReport {
  readonly title: string;
  readonly rows: readonly ReportRow[];
  /** A matrix of results without goals, printed after the rows (e.g. one line per strategy). */
  readonly table?: { readonly header: readonly string[]; readonly cells: readonly (readonly string[])[] };
  /** Free-form lines printed under the table (checks, context, caveats). */
  readonly notes: readonly string[];
}

export interface Bench {
  readonly name: string;
  run(): Promise<BenchReport>;
}

export function meetsGoal(value: number, goal: Goal): boolean {
  switch (goal.comparison) {
    case '<=':
      return value <= goal.target;
    case '<':
      return value < goal.target;
    case '>=':
      return value >= goal.target;
  }
}

export function formatValue(value: number, unit = ''): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 3;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

export function formatReport(report: BenchReport): string {
  const lines = [`== ${report.title}`];
  if (report.rows.length > 0) {
    const cells = report.rows.map((row) => [
      row.label,
      formatValue(row.value, row.unit),
      row.goal ? `${row.goal.comparison} ${formatValue(row.goal.target, row.unit)}` : '',
      row.goal ? (meetsGoal(row.value, row.goal) ? 'PASS' : 'MISS') : '',
    ]);
    lines.push(...formatTable(['measure', 'value', 'goal', ''], cells));
  }
  if (report.table) lines.push(...formatTable(report.table.header, report.table.cells));
  lines.push(...report.notes.map((note) => `  ${note}`));
  return lines.join('\n');
}

/** Left-aligned text columns; columns after the first that hold numbers are right-aligned. */
export function formatTable(header: readonly string[], cells: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((cell) => (cell[column] ?? '').length)),
  );
  const numeric = header.map(
    (_, column) => column > 0 && cells.every((cell) => /^[-\d.,% ms]*$/.test(cell[column] ?? '')),
  );
  const line = (cell: readonly string[]) =>
    header
      .map((_, column) => {
        const text = cell[column] ?? '';
        return numeric[column] ? text.padStart(widths[column]!) : text.padEnd(widths[column]!);
      })
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)];
}
