/**
 * The four WorfBench scenarios (docs/algorithms.md#worfbench-scenarios) and which task source belongs to which. Scores
 * are averaged by scenario as the paper reports them; a source outside this table is reported under its own name.
 */
export type Scenario = 'function call' | 'embodied' | 'problem-solving' | 'open-grounded';

/** In the paper's order, which is also the order of report tables. */
export const SCENARIOS: readonly Scenario[] = ['function call', 'embodied', 'problem-solving', 'open-grounded'];

export const SCENARIO_SOURCES: Readonly<Record<Scenario, readonly string[]>> = {
  'function call': ['toolbench', 'toolalpaca', 'seal_tools'],
  embodied: ['alfworld', 'webshop', 'os', 'intercodesql'],
  'problem-solving': ['lumos'],
  'open-grounded': ['wikihow'],
};

const BY_SOURCE = new Map<string, Scenario>(
  SCENARIOS.flatMap((scenario) => SCENARIO_SOURCES[scenario].map((source) => [source, scenario] as const)),
);

/** The scenario of a task source (`alfworld` → `embodied`); undefined for a source WorfBench does not have. */
export function scenarioOf(source: string): Scenario | undefined {
  return BY_SOURCE.get(source.trim().toLowerCase());
}

/** WorfBench ids are `<source>_<number>` (`alfworld_12`, `seal_tools_3`): the source, or undefined. */
export function sourceOfId(id: string): string | undefined {
  const match = /^(.+?)_\d+$/.exec(id.trim());
  return match ? match[1] : undefined;
}

/** The report group of a source: its scenario, or the source itself when it has none. */
export function scenarioGroupOf(source: string): string {
  return scenarioOf(source) ?? source;
}

/**
 * Orders group names for reports: the scenarios in paper order, then sources in their scenario order, then
 * anything else alphabetically.
 */
export function compareGroups(a: string, b: string): number {
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

const RANKS = new Map<string, number>([
  ...SCENARIOS.map((scenario, index) => [scenario, index] as const),
  ...SCENARIOS.flatMap((scenario) => SCENARIO_SOURCES[scenario]).map(
    (source, index) => [source, SCENARIOS.length + index] as const,
  ),
]);

function rank(group: string): number {
  return RANKS.get(group) ?? Number.MAX_SAFE_INTEGER;
}
