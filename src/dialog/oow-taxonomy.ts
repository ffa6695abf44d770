/**
 * The out-of-workflow (OOW) taxonomy: the kinds of move a simulated user makes to leave a procedure's expected flow.
 * The FlowAgent paper names three categories — intent switching, procedure jumping, irrelevant answering — and its
 * authors' data set refines them into 17 subtypes (a YAML list of `{name, description, types: [{name,
 * description}]}`). The built-in taxonomy below has the same 3 × 17 structure, written in our own words, with the
 * instruction a user model reads for each subtype; a file of the authors' shape can replace it
 * (`weft simulate --oow-taxonomy FILE`), read as it is and checked with located problems.
 *
 * Ids: a category's or subtype's name in lower case, with `_` for every run of other characters (`Detail
 * Switching` → `detail_switching`). Two of the authors' category names differ from the paper's words and are read
 * as the paper's ids, so a report groups them the same with either taxonomy: `Answering Irrelevantly` →
 * `irrelevant_answering`, `Process Jumping` → `procedure_jumping`.
 */
import { WeftError, type LocatedIssue } from '../errors.js';
import { clip } from '../text/clip.js';
import { describeValue } from '../text/describe-value.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { type FieldPath, formatFieldPath } from '../text/source-locator.js';
import { unknownKeyIssues } from '../tools/parse-tools-section.js';
import { readInputFile } from '../tools/read-input-file.js';

export interface OowSubtype {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** What the user model is told to do on a turn drawn for this subtype. */
  readonly instruction: string;
}

export interface OowCategoryDef {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly subtypes: readonly OowSubtype[];
}

export interface OowTaxonomy {
  readonly categories: readonly OowCategoryDef[];
  /** `built-in`, or the file it was read from. */
  readonly source: string;
}

/** The paper's three categories, by id, in the built-in taxonomy's order. */
export const PAPER_OOW_CATEGORIES = ['intent_switching', 'procedure_jumping', 'irrelevant_answering'] as const;

/** Category names of the authors' taxonomy file read as the paper's ids. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  answering_irrelevantly: 'irrelevant_answering',
  irrelevant_answers: 'irrelevant_answering',
  process_jumping: 'procedure_jumping',
  step_jumping: 'procedure_jumping',
  intention_switching: 'intent_switching',
};

/** `Detail Switching` → `detail_switching`. */
export function oowId(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}

/** A category's id: its name's, or the paper's id for the authors' other words. */
export function oowCategoryId(name: string): string {
  const id = oowId(name);
  return CATEGORY_ALIASES[id] ?? id;
}

const subtype = (name: string, description: string, instruction: string): OowSubtype => ({
  id: oowId(name),
  name,
  description,
  instruction: `In this message, ${instruction}`,
});

export const DEFAULT_OOW_TAXONOMY: OowTaxonomy = Object.freeze({
  source: 'built-in',
  categories: [
    {
      id: 'intent_switching',
      name: 'Intent switching',
      description: 'The user changes what they asked for in the middle of the conversation.',
      subtypes: [
        subtype(
          'Detail switching',
          'A detail already given (a date, a place, an option) is changed.',
          'change one detail you already gave (a date, a place, a quantity or an option) to a different value, and keep the rest of your request as it was.',
        ),
        subtype(
          'Confirmation switching',
          'Something the user confirmed is taken back to be changed.',
          'take back something you confirmed earlier: you agreed to it, and now you want to change it before it goes ahead.',
        ),
        subtype(
          'Attitude switching',
          'The user changes their mind about whether an option or the service suits them.',
          'change how you feel about what the assistant offered: say it no longer suits you (or that an option you turned down suits you after all).',
        ),
        subtype(
          'Request cancellation',
          'The user drops the request.',
          'say you want to cancel your request altogether. If the assistant asks you to confirm, decide according to your profile whether you really want to stop.',
        ),
        subtype(
          'Information addition',
          'The user adds a requirement or a detail that was not part of the request.',
          'add a new requirement or a new piece of information to your request that you had not mentioned before (an extra person, a preference, a deadline).',
        ),
      ],
    },
    {
      id: 'procedure_jumping',
      name: 'Procedure jumping',
      description: 'The user does not follow the order of the procedure: skips, reorders, repeats or goes back.',
      subtypes: [
        subtype(
          'Step skipping',
          'The user asks for a later step, or the result, before the current one is done.',
          'ask for the final result of your request straight away, as if the step the assistant is on (a check, a confirmation, a question) were unnecessary.',
        ),
        subtype(
          'Process restructuring',
          'The user wants the steps in another order.',
          'ask the assistant to do the steps in a different order from the one it follows (for example, to settle the last part first).',
        ),
        subtype(
          'Step repetition',
          'The user asks to do a step again that is already done.',
          'ask to do again a step that is already behind you, as if it had not happened.',
        ),
        subtype(
          'Returning to initial steps',
          'The user goes back to the start of the procedure.',
          'ask to start over from the very beginning of the process.',
        ),
        subtype(
          'Rule ignoring',
          'The user asks to bend or skip a rule of the procedure.',
          'ask the assistant to make an exception to one of the rules of the process (skip a check, do without a detail it needs, go past a limit).',
        ),
        subtype(
          'Step splitting',
          'The user gives what a step needs in pieces, over several messages.',
          'give only a part of what the assistant needs for the current step and say you will give the rest in your next messages.',
        ),
      ],
    },
    {
      id: 'irrelevant_answering',
      name: 'Irrelevant answering',
      description:
        'The user does not answer what was asked: a wrong, vague or partial answer, or something else entirely.',
      subtypes: [
        subtype(
          'Incorrect response',
          'An answer that is plainly wrong or impossible.',
          'answer the assistant with something plainly wrong or impossible (a date that does not exist, a number in the wrong format), as if teasing it.',
        ),
        subtype(
          'Vague answer',
          'An answer without the precise value asked for.',
          'answer vaguely, without the precise value the assistant asked for (for example "sometime next week" or "the usual one").',
        ),
        subtype(
          'Topic shift',
          'The user talks about something unrelated to the request.',
          'do not answer what the assistant asked. Talk about something unrelated to your request (a question about the company, the weather, your day), then stop.',
        ),
        subtype(
          'Counterquestion',
          'The user answers with a question of their own.',
          'answer with a question of your own instead of the information asked for (for example "Why do you need that?" or "Why does this always take so long?").',
        ),
        subtype(
          'Irrelevant information',
          'The user gives information that has nothing to do with the question.',
          'reply with information that has nothing to do with the question (something about yourself or your plans that the assistant did not ask for).',
        ),
        subtype(
          'Partial answer',
          'The user answers only part of the question.',
          'answer only part of what the assistant asked and leave the rest out, without saying so.',
        ),
      ],
    },
  ],
});

/** Limits on a taxonomy file: the authors' has 3 categories of 5-6 subtypes. */
export const MAX_OOW_TAXONOMY_BYTES = 1_000_000;
const MAX_CATEGORIES = 50;
const MAX_SUBTYPES = 100;
const MAX_TEXT = 2_000;
const CATEGORY_KEYS = ['name', 'description', 'types'] as const;
const SUBTYPE_KEYS = ['name', 'description'] as const;

/** Reads a taxonomy file of the authors' shape; every problem is located, all at once (BAD_INPUT). */
export async function loadOowTaxonomy(path: string): Promise<OowTaxonomy> {
  return parseOowTaxonomy(await readInputFile(path, 'OOW taxonomy file', MAX_OOW_TAXONOMY_BYTES), path);
}

export function parseOowTaxonomy(text: string, file: string): OowTaxonomy {
  const read = readStructuredSource(text, file);
  if ('issues' in read)
    throw new WeftError('BAD_INPUT', `invalid OOW taxonomy file: ${read.issues[0]?.message ?? 'unreadable'}`, {
      location: { file },
      issues: read.issues.slice(0, 50).map((issue) => ({ ...issue, file })),
    });
  const issues: LocatedIssue[] = [];
  const issue = (path: FieldPath, message: string) => {
    const field = formatFieldPath(path);
    issues.push({ file, ...(read.positionOf(path) ?? {}), ...(field === undefined ? {} : { field }), message });
  };
  const root = read.value;
  const categories: OowCategoryDef[] = [];
  if (!Array.isArray(root) || root.length === 0) {
    issue(
      [],
      `an OOW taxonomy is a list of categories, each {name, description, types: [{name, description}]}; got ${describeValue(root)}`,
    );
  } else if (root.length > MAX_CATEGORIES) {
    issue([], `lists ${root.length} categories; at most ${MAX_CATEGORIES}`);
  } else {
    const seen = new Map<string, number>();
    root.forEach((raw: unknown, index) => {
      const path: FieldPath = [index];
      const entry = record(raw, path, 'a category ({name, description, types})', issue);
      if (!entry) return;
      for (const problem of unknownKeyIssues(entry, CATEGORY_KEYS, path, 'key')) issue(problem.path, problem.message);
      const name = readText(entry.name, [...path, 'name'], issue, true);
      const id = name === undefined ? undefined : oowCategoryId(name);
      if (id === '')
        issue([...path, 'name'], `${JSON.stringify(clip(name ?? '', 100))} has no letters or digits to make an id of`);
      const earlier = id === undefined ? undefined : seen.get(id);
      if (earlier !== undefined)
        issue([...path, 'name'], `category "${name}" has the id "${id}" of category [${earlier}]`);
      const description = readText(entry.description, [...path, 'description'], issue, false) ?? '';
      const subtypes = readSubtypes(entry.types, [...path, 'types'], issue);
      if (name === undefined || id === undefined || id === '' || earlier !== undefined) return;
      seen.set(id, index);
      categories.push({ id, name, description, subtypes });
    });
  }
  const [only] = issues;
  if (issues.length === 1 && only) {
    const { message, ...location } = only;
    throw new WeftError('BAD_INPUT', message, { location });
  }
  if (issues.length > 0)
    throw new WeftError('BAD_INPUT', `invalid OOW taxonomy file: ${issues.length} problems`, {
      location: { file },
      issues: issues.slice(0, 50),
    });
  return { categories, source: file };
}

function readSubtypes(
  value: unknown,
  path: FieldPath,
  issue: (path: FieldPath, message: string) => void,
): OowSubtype[] {
  if (!Array.isArray(value) || value.length === 0) {
    issue(path, `expected a non-empty list of subtypes ({name, description}), got ${describeValue(value)}`);
    return [];
  }
  if (value.length > MAX_SUBTYPES) {
    issue(path, `lists ${value.length} subtypes; at most ${MAX_SUBTYPES}`);
    return [];
  }
  const subtypes: OowSubtype[] = [];
  const seen = new Map<string, number>();
  value.forEach((raw: unknown, index) => {
    const at: FieldPath = [...path, index];
    const entry = record(raw, at, 'a subtype ({name, description})', issue);
    if (!entry) return;
    for (const problem of unknownKeyIssues(entry, SUBTYPE_KEYS, at, 'key')) issue(problem.path, problem.message);
    const name = readText(entry.name, [...at, 'name'], issue, true);
    const description = readText(entry.description, [...at, 'description'], issue, false) ?? '';
    if (name === undefined) return;
    const id = oowId(name);
    if (id === '')
      return issue([...at, 'name'], `${JSON.stringify(clip(name, 100))} has no letters or digits to make an id of`);
    const earlier = seen.get(id);
    if (earlier !== undefined)
      return issue([...at, 'name'], `subtype "${name}" has the id "${id}" of subtype [${earlier}]`);
    seen.set(id, index);
    subtypes.push({
      id,
      name,
      description,
      instruction: `In this message, make this kind of move: ${name}${description ? ` (${description.replace(/\.$/, '')})` : ''}. Keep it short and in character.`,
    });
  });
  return subtypes;
}

function record(
  value: unknown,
  path: FieldPath,
  what: string,
  issue: (path: FieldPath, message: string) => void,
): Record<string, unknown> | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  issue(path, `expected ${what}, got ${describeValue(value)}`);
  return undefined;
}

function readText(
  value: unknown,
  path: FieldPath,
  issue: (path: FieldPath, message: string) => void,
  required: boolean,
): string | undefined {
  if (value === undefined || value === null) {
    if (required) issue(path, `missing required key "${String(path.at(-1))}"`);
    return undefined;
  }
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    issue(path, `expected ${required ? 'non-empty ' : ''}text, got ${describeValue(value)}`);
    return undefined;
  }
  if (value.length > MAX_TEXT) {
    issue(path, `is ${value.length} characters long; at most ${MAX_TEXT}`);
    return undefined;
  }
  return value.trim();
}
