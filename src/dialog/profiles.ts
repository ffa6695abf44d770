/**
 * User profiles for simulated sessions (`weft simulate --profiles FILE`), in either of two formats, one record a line
 * (JSON Lines) or all of them in a JSON array:
 *
 * - Weft's: `{ id, persona, details: {slot: value}, needs: [..], style, pattern, required_apis: [..],
 *   goals: ["text" | { goal, apis?: [..] }] }`. `persona` and at least one goal are required.
 * - The FlowAgent authors': `{ persona, user_details, user_needs, dialogue_style, interactive_pattern,
 *   required_apis? }`, all text (their files are a JSON array of these). Mapped onto Weft's: `persona` as is;
 *   `user_details` ("- Name: John Smith\n- ID Number: AB1234567") into details, each `- Key: Value` line a detail
 *   named by its key in lower case with `_` for spaces (`id_number`), the whole text under `details` when no line
 *   has that shape; `user_needs` into needs, one a bullet line; `dialogue_style` into style; `interactive_pattern`
 *   (or `interaction_patterns`, the name the authors' code uses) into pattern. Without `id` a profile is numbered
 *   by its place, from 1; without `goals` its needs are its goals.
 *
 * `required_apis` is what tool F1 compares the called APIs with. A profile without it has no tool F1: both the
 * paper's and Weft's are reported as not computable for it, never as a score. A goal's `apis` tell the judge (and
 * the sim judge) which API successes show it was reached. Names of APIs are checked against the procedure by
 * `checkProfileApis` (the file itself does not know the procedure).
 */
import { WeftError, type LocatedIssue } from '../errors.js';
import type { DialogGoalSpec, DialogProfileSpec } from './dialog-prompt-tags.js';
import { describeValue } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import {
  checkKeys,
  isPlainObject,
  loadRecordsFile,
  parseRecordsText,
  readId,
  readString,
  readStringList,
  type Problems,
} from './load-jsonl-records.js';
import { callNameOf } from './call-name.js';
import type { Pdl } from './pdl.js';

export interface UserProfile extends DialogProfileSpec {
  /** What tool F1 compares the called APIs with; undefined when the profile does not say (no F1 for it). */
  readonly requiredApis?: readonly string[];
  readonly goals: readonly DialogGoalSpec[];
  /** Its place among the file's profiles, from 0 (the paper's out-of-workflow assignment is keyed by it). */
  readonly index: number;
  /** The format it was written in. */
  readonly format: 'weft' | 'flowagent';
  /** 1-based line in its file. */
  readonly line: number;
}

const PROFILE_KEYS = ['id', 'persona', 'details', 'needs', 'style', 'pattern', 'required_apis', 'goals'] as const;
const FLOWAGENT_KEYS = [
  'id',
  'persona',
  'user_details',
  'user_needs',
  'dialogue_style',
  'interactive_pattern',
  'interaction_patterns',
  'required_apis',
  'goals',
] as const;
/** Keys only a FlowAgent profile has: one of them makes a record one. */
const FLOWAGENT_MARKERS = [
  'user_details',
  'user_needs',
  'dialogue_style',
  'interactive_pattern',
  'interaction_patterns',
];
const GOAL_KEYS = ['goal', 'apis'] as const;

/** Profiles from a JSON Lines file or a JSON array, in Weft's format or the FlowAgent authors'. */
export async function loadProfiles(path: string): Promise<UserProfile[]> {
  return loadRecordsFile(path, 'profiles file', readProfile);
}

/** The same as `loadProfiles`, from text (`file` names it in messages). */
export function parseProfiles(text: string, file: string): UserProfile[] {
  return parseRecordsText(text, file, 'profiles file', readProfile);
}

function readProfile(
  record: Record<string, unknown>,
  problems: Problems,
  { index }: { readonly index: number },
): Omit<UserProfile, 'line'> | undefined {
  if (FLOWAGENT_MARKERS.some((key) => key in record)) return readFlowAgentProfile(record, problems, index);
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
  const requiredApis = readRequiredApis(record.required_apis, problems);
  const goals = readGoals(record.goals, problems);
  if (problems.length > before || id === undefined || persona === undefined) return undefined;
  return { id, persona, details, needs, style, pattern, ...withRequired(requiredApis), goals, index, format: 'weft' };
}

function withRequired(requiredApis: string[] | undefined): { requiredApis?: string[] } {
  return requiredApis === undefined ? {} : { requiredApis };
}

/** A FlowAgent profile mapped onto Weft's (see the head of this file). */
function readFlowAgentProfile(
  record: Record<string, unknown>,
  problems: Problems,
  index: number,
): Omit<UserProfile, 'line'> | undefined {
  const before = problems.length;
  checkKeys(record, FLOWAGENT_KEYS, problems);
  const id = record.id === undefined ? String(index + 1) : readId(record.id, problems);
  const persona = readString(record.persona, ['persona'], problems, { required: true });
  const details = readDetailsText(record.user_details, problems);
  const needs = readTextList(record.user_needs, ['user_needs'], problems);
  const style = readString(record.dialogue_style, ['dialogue_style'], problems) ?? '';
  if (record.interactive_pattern !== undefined && record.interaction_patterns !== undefined) {
    problems.push({
      path: ['interaction_patterns'],
      message: 'both "interactive_pattern" and "interaction_patterns" are given; keep one',
    });
  }
  const patternKey = record.interactive_pattern !== undefined ? 'interactive_pattern' : 'interaction_patterns';
  const pattern = readString(record[patternKey], [patternKey], problems) ?? '';
  const requiredApis = readRequiredApis(record.required_apis, problems);
  let goals: DialogGoalSpec[];
  if (record.goals !== undefined) goals = readGoals(record.goals, problems);
  else {
    goals = needs.map((need) => ({ goal: need }));
    if (goals.length === 0)
      problems.push({
        path: ['user_needs'],
        message: 'no "goals" and no "user_needs" to take them from: say what the user wants done (the judge scores it)',
      });
  }
  if (problems.length > before || id === undefined || persona === undefined) return undefined;
  const format = 'flowagent';
  return { id, persona, details, needs, style, pattern, ...withRequired(requiredApis), goals, index, format };
}

/** `required_apis`, with free-text names called as the procedure calls them; undefined when absent. */
function readRequiredApis(value: unknown, problems: Problems): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return readStringList(value, ['required_apis'], problems).map(callNameOf);
}

/** A `- ` bullet (or `* `, `1. `) at the start of a line, with its indentation. */
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+/u;
/** `Key: Value` on one line. */
const DETAIL_LINE = /^([^:]{1,64}?)\s*[:：]\s*(.+)$/u;

/** `user_details` as details: `- Key: Value` lines by key, or the whole text under `details`. */
function readDetailsText(value: unknown, problems: Problems): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (isPlainObject(value)) return value;
  if (typeof value !== 'string') {
    problems.push({
      path: ['user_details'],
      message: `"user_details" must be text (or an object of names to values), got ${describeValue(value)}`,
    });
    return {};
  }
  const details: Record<string, unknown> = {};
  for (const line of value.split(/\r?\n/)) {
    const match = DETAIL_LINE.exec(line.replace(BULLET, '').trim());
    if (!match) continue;
    const key = match[1]!.trim().toLowerCase().split(/\s+/u).join('_');
    if (key !== '' && !Object.hasOwn(details, key)) details[key] = match[2]!.trim();
  }
  if (Object.keys(details).length === 0 && value.trim() !== '') details.details = value.trim();
  return details;
}

/** Text as a list, one item a bullet line (continuation lines joined), or a list of strings as it is. */
function readTextList(value: unknown, path: (string | number)[], problems: Problems): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return readStringList(value, path, problems);
  if (typeof value !== 'string') {
    problems.push({ path, message: `"${path.at(-1)}" must be text or a list of strings, got ${describeValue(value)}` });
    return [];
  }
  const items: string[] = [];
  for (const line of value.split(/\r?\n/)) {
    const text = line.replace(BULLET, '').trim();
    if (text === '') continue;
    if (BULLET.test(line) || items.length === 0) items.push(text);
    else items[items.length - 1] = `${items[items.length - 1]} ${text}`;
  }
  return items;
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
    const apis = readStringList(item.apis, [...path, 'apis'], problems).map(callNameOf);
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
    profile.requiredApis?.forEach((name, index) => check(name, profile.line, `required_apis[${index}]`));
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
    // The authors' profiles describe a person, not the values a procedure asks for: their users make those up.
    ...(profile.format === 'flowagent' ? { inventsDetails: true } : {}),
  };
}
