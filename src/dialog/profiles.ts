/**
 * User profiles for simulated sessions (`weft simulate --profiles P.jsonl`, SPEC §4.3): one a line,
 * `{ id, persona, details: {slot: value}, needs: [..], style, pattern, required_apis: [..],
 *    goals: ["text" | { goal, apis?: [..] }] }`.
 *
 * `persona` and at least one goal are required; the rest may be left out (empty). `details` values are any JSON
 * (the user model reads them). `required_apis` is what tool F1 compares the called APIs with; a goal's `apis` tell
 * the judge (and the sim judge) which API successes show it was reached. Names of APIs are checked against the
 * procedure by `checkProfileApis` (the file itself does not know the procedure).
 */
import { WeftError, type LocatedIssue } from '../errors.js';
import type { DialogGoalSpec, DialogProfileSpec } from '../llm/dialog-prompt-tags.js';
import { closestWord } from '../text/edit-distance.js';
import {
  checkKeys,
  isPlainObject,
  loadJsonlRecords,
  parseJsonlRecords,
  readId,
  readString,
  readStringList,
  type Problems,
} from './load-jsonl-records.js';
import type { Pdl } from './pdl.js';

export interface UserProfile extends DialogProfileSpec {
  readonly requiredApis: readonly string[];
  readonly goals: readonly DialogGoalSpec[];
  /** 1-based line in its file. */
  readonly line: number;
}

const PROFILE_KEYS = ['id', 'persona', 'details', 'needs', 'style', 'pattern', 'required_apis', 'goals'] as const;
const GOAL_KEYS = ['goal', 'apis'] as const;

export async function loadProfiles(path: string): Promise<UserProfile[]> {
  return loadJsonlRecords(path, 'profiles file', readProfile);
}

/** The same as `loadProfiles`, from text (`file` names it in messages). */
export function parseProfiles(text: string, file: string): UserProfile[] {
  return parseJsonlRecords(text, file, 'profiles file', readProfile);
}

function readProfile(record: Record<string, unknown>, problems: Problems): Omit<UserProfile, 'line'> | undefined {
  const before = problems.length;
  checkKeys(record, PROFILE_KEYS, problems);
  const id = readId(record.id, problems);
  const persona = readString(record.persona, ['persona'], problems, { required: true });
  let details: Record<string, unknown> = {};
  if (record.details !== undefined && record.details !== null) {
    if (isPlainObject(record.details)) details = record.details;
    else problems.push({ path: ['details'], message: '"details" must be an object of slot names to values' });
  }
  const needs = readStringList(record.needs, ['needs'], problems);
  const style = readString(record.style, ['style'], problems) ?? '';
  const pattern = readString(record.pattern, ['pattern'], problems) ?? '';
  const requiredApis = readStringList(record.required_apis, ['required_apis'], problems);
  const goals = readGoals(record.goals, problems);
  if (problems.length > before || id === undefined || persona === undefined) return undefined;
  return { id, persona, details, needs, style, pattern, requiredApis, goals };
}

function readGoals(value: unknown, problems: Problems): DialogGoalSpec[] {
  if (value === undefined || value === null) {
    problems.push({
      path: ['goals'],
      message: 'missing "goals": list what the user wants done (the judge scores them)',
    });
    return [];
  }
  if (!Array.isArray(value)) {
    problems.push({ path: ['goals'], message: '"goals" must be an array of strings or {goal, apis} objects' });
    return [];
  }
  if (value.length === 0) problems.push({ path: ['goals'], message: '"goals" is empty: list at least one goal' });
  const goals: DialogGoalSpec[] = [];
  value.forEach((item: unknown, index) => {
    const path = ['goals', index];
    if (typeof item === 'string') {
      if (item.trim() === '') problems.push({ path, message: 'empty goal' });
      else goals.push({ goal: item });
      return;
    }
    if (!isPlainObject(item)) {
      problems.push({ path, message: 'a goal is a string or an object {goal, apis?}' });
      return;
    }
    checkKeys(item, GOAL_KEYS, problems, path);
    const goal = readString(item.goal, [...path, 'goal'], problems, { required: true });
    const apis = readStringList(item.apis, [...path, 'apis'], problems);
    if (goal !== undefined) goals.push({ goal, ...(item.apis !== undefined ? { apis } : {}) });
  });
  return goals;
}

/**
 * Every API a profile names (`required_apis`, goals' `apis`) must be one of the procedure's: a typo would score
 * every session 0 on it. One BAD_INPUT listing them all, located at the profile's line.
 */
export function checkProfileApis(profiles: readonly UserProfile[], pdl: Pick<Pdl, 'apis'>, file: string): void {
  const names = pdl.apis.map((api) => api.name);
  const byLower = new Map(names.map((name) => [name.toLowerCase(), name]));
  const issues: LocatedIssue[] = [];
  const check = (name: string, line: number, field: string) => {
    if (names.includes(name)) return;
    const guess = closestWord(name, [...byLower.keys()]);
    issues.push({
      file,
      line,
      field,
      message: `unknown API "${name}"${guess ? ` (did you mean "${byLower.get(guess)}"?)` : ''}; the procedure has: ${names.join(', ') || 'none'}`,
    });
  };
  for (const profile of profiles) {
    profile.requiredApis.forEach((name, index) => check(name, profile.line, `required_apis[${index}]`));
    profile.goals.forEach((goal, goalIndex) =>
      goal.apis?.forEach((name, index) => check(name, profile.line, `goals[${goalIndex}].apis[${index}]`)),
    );
  }
  if (issues.length > 0)
    throw new WeftError(
      'BAD_INPUT',
      `the profiles name ${issues.length === 1 ? 'an API' : `${issues.length} APIs`} the procedure does not have`,
      { location: { file }, issues: issues.slice(0, 50) },
    );
}

/** What the user model's `<profile>` block carries. */
export function profileSpec(profile: UserProfile): DialogProfileSpec {
  return {
    id: profile.id,
    persona: profile.persona,
    details: profile.details,
    needs: profile.needs,
    style: profile.style,
    pattern: profile.pattern,
  };
}
