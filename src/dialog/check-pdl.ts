/**
 * What the names of a procedure mean together (`weft pdl check`, and loadPdlFile): problems on top of parsePdl's,
 * all at once, located in the file when the Pdl came from parsePdl (pdl-source-map.ts).
 *
 * Errors: an unknown API or ANSWER named in the procedure or in a precondition (with a guess), a precondition cycle
 * (named: none of its APIs could ever be called), a name given twice (slots, APIs, answers), an API no tool binds
 * (when the tool names are given). Warnings: a request parameter that no slot, no response of an API it depends on
 * (directly or not) and nothing the procedure assigns before calling it provides; a result condition on a field
 * its API does not list in `response`.
 */
import { closestWord } from '../text/edit-distance.js';
import type { FieldPath } from '../text/source-locator.js';
import { apiGraph, dependenciesOf } from './api-graph.js';
import type { Pdl, PdlProblem } from './pdl.js';
import { pdlProblemAt, pdlSourceOf, SECTION_KEYS, sourcePathOf } from './pdl-source-map.js';
import { MAX_PDL_NAME_LENGTH } from './pdl-keys.js';
import { conditionText } from '../text/result-condition.js';
import { scanProcedure } from './scan-procedure.js';

export interface CheckPdlOptions {
  /** The tools the APIs bind to: each API needs a tool of its name. Without it, bindings are not checked. */
  readonly toolNames?: Iterable<string>;
}

/** Unknown names guessed at: each guess compares with every name, and a hostile procedure can hold thousands. */
const MAX_GUESSES = 200;

export function checkPdl(pdl: Pdl, options: CheckPdlOptions = {}): PdlProblem[] {
  const problems: PdlProblem[] = [];
  const error = (path: FieldPath, message: string) => problems.push(pdlProblemAt(pdl, 'error', path, message));
  const apiNames = new Set(pdl.apis.map((api) => api.name));
  const answerNames = new Set(pdl.answers.map((answer) => answer.name));
  const guess = guesser();
  const apiGuess = (name: string) => guess(name, [...apiNames]);

  duplicates(pdl, error);

  pdl.apis.forEach((api, index) => {
    api.precondition.forEach((name, at) => {
      if (!apiNames.has(name)) {
        error(['apis', index, 'precondition', at], unknownApi(name, answerNames, apiGuess, `API "${api.name}"`));
      }
    });
  });
  pdl.answers.forEach((answer, index) => {
    answer.precondition.forEach((name, at) => {
      if (!apiNames.has(name)) {
        error(
          ['answers', index, 'precondition', at],
          unknownApi(name, answerNames, apiGuess, `answer "${answer.name}"`),
        );
      }
    });
  });

  problems.push(...conditionFieldProblems(pdl));

  for (const cycle of apiGraph(pdl).cycles) {
    const [first, second] = cycle;
    const index = pdl.apis.findIndex((api) => api.name === first);
    const at = pdl.apis[index]?.precondition.indexOf(second ?? '') ?? -1;
    const shown = cycle.length === 2 ? `"${first}" needs itself` : `${cycle.join(' → ')} (each needs the next)`;
    error(
      ['apis', index, 'precondition', ...(at === -1 ? [] : [at])],
      `precondition cycle: ${shown}; none of these APIs could ever be called`,
    );
  }

  for (const found of pdl.references) {
    const where = { line: found.line, column: found.column };
    // A name in the procedure text can be any length: shown cut, so one problem stays one line.
    const reference =
      found.name.length > MAX_PDL_NAME_LENGTH
        ? { ...found, name: `${found.name.slice(0, MAX_PDL_NAME_LENGTH)}…` }
        : found;
    if (reference.kind === 'api' && !apiNames.has(reference.name)) {
      const answer = answerNames.has(reference.name)
        ? `; "${reference.name}" is an answer: ANSWER.${reference.name}(…)`
        : '';
      const suggestion = answer ? '' : didYouMean(apiGuess(reference.name));
      problems.push(
        pdlProblemAt(pdl, 'error', ['procedure'], `unknown API "${reference.name}"${suggestion}${answer}`, where),
      );
    } else if (reference.kind === 'answer' && !answerNames.has(reference.name)) {
      const api = apiNames.has(reference.name) ? `; "${reference.name}" is an API: API.${reference.name}(…)` : '';
      const suggestion = api ? '' : didYouMean(guess(reference.name, [...answerNames]));
      problems.push(
        pdlProblemAt(pdl, 'error', ['procedure'], `unknown ANSWER "${reference.name}"${suggestion}${api}`, where),
      );
    }
  }

  if (options.toolNames !== undefined) {
    const tools = [...options.toolNames];
    const toolSet = new Set(tools);
    pdl.apis.forEach((api, index) => {
      if (toolSet.has(api.name)) return;
      const suggestion = didYouMean(guess(api.name, tools), 'tool ');
      error(['apis', index, 'name'], `no tool binds API "${api.name}": no tool of that name${suggestion}`);
    });
  }

  problems.push(...unprovidedParameters(pdl));
  return problems;
}

/** A condition on a field its API does not list in its `response`: a warning (results may hold more than listed). */
function conditionFieldProblems(pdl: Pdl): PdlProblem[] {
  const responses = new Map<string, readonly string[]>();
  for (const api of pdl.apis) if (!responses.has(api.name)) responses.set(api.name, api.response);
  const problems: PdlProblem[] = [];
  for (const section of ['apis', 'answers'] as const) {
    pdl[section].forEach((entry, index) => {
      (entry.conditions ?? []).forEach((condition, at) => {
        const response = responses.get(condition.api);
        const [field = ''] = condition.field;
        if (response === undefined || response.includes(field)) return;
        const listed = response.length === 0 ? 'it lists none' : response.join(', ');
        problems.push(
          pdlProblemAt(
            pdl,
            'warning',
            [section, index, 'conditions', at],
            `the condition ${conditionText(condition)} reads "${field}", which is not in the response of ${condition.api} (${listed})${didYouMean(closestWord(field, [...response]))}`,
          ),
        );
      });
    });
  }
  return problems;
}

function duplicates(pdl: Pdl, error: (path: FieldPath, message: string) => void): void {
  const map = pdlSourceOf(pdl);
  for (const section of ['slots', 'apis', 'answers'] as const) {
    const first = new Map<string, number>();
    const what = section === 'slots' ? 'slot' : section === 'apis' ? 'API' : 'answer';
    const entries: readonly { readonly name: string; readonly label?: string }[] = pdl[section];
    entries.forEach((entry, index) => {
      const earlier = first.get(entry.name);
      if (earlier === undefined) {
        first.set(entry.name, index);
        return;
      }
      const [, earlierIndex] = sourcePathOf(map, [section, earlier]);
      const also = `${SECTION_KEYS[section]}[${earlierIndex ?? earlier}]`;
      const written = [entries[earlier]?.label ?? entries[earlier]?.name, entry.label ?? entry.name];
      error(
        [section, index, 'name'],
        written[0] === written[1]
          ? `duplicate ${what} name "${entry.name}" (also ${also})`
          : `${what} names "${written[0]}" (${also}) and "${written[1]}" both map to "${entry.name}", the name the procedure calls them by`,
      );
    });
  }
}

function unknownApi(
  name: string,
  answerNames: ReadonlySet<string>,
  guess: (name: string) => string | undefined,
  of: string,
): string {
  if (answerNames.has(name)) return `"${name}" in the precondition of ${of} is an answer; preconditions name APIs`;
  return `unknown API "${name}" in the precondition of ${of}${didYouMean(guess(name))}`;
}

function didYouMean(guess: string | undefined, what = ''): string {
  return guess === undefined ? '' : ` (did you mean ${what}"${guess}"?)`;
}

/** closestWord over names as written (case-insensitive), remembered per name and capped at MAX_GUESSES names. */
function guesser(): (name: string, candidates: readonly string[]) => string | undefined {
  const made = new Map<string, string | undefined>();
  return (name, candidates) => {
    const key = `${name}\u0000${candidates.length}`;
    if (made.has(key)) return made.get(key);
    if (made.size >= MAX_GUESSES || name.length > MAX_PDL_NAME_LENGTH) return undefined;
    const byLower = new Map(candidates.map((candidate) => [candidate.toLowerCase(), candidate]));
    const lower = closestWord(name, [...byLower.keys()]);
    const guess = lower === undefined ? undefined : byLower.get(lower);
    made.set(key, guess);
    return guess;
  };
}

/**
 * Request parameters nothing provides: not a slot, not in the response of an API the API depends on (through its
 * preconditions), not assigned by the procedure before its first call of the API (anywhere, when it never calls it).
 */
function unprovidedParameters(pdl: Pdl): PdlProblem[] {
  const problems: PdlProblem[] = [];
  const slots = new Set(pdl.slots.map((slot) => slot.name));
  const scan = scanProcedure(pdl.procedure, {
    apiNames: new Set(pdl.apis.map((api) => api.name)),
    answerNames: new Set(pdl.answers.map((answer) => answer.name)),
  });
  const assigned = [
    ...scan.assignments,
    ...scan.references.flatMap((reference) => reference.outputs.map((name) => ({ name, offset: reference.offset }))),
  ];
  const responses = new Map<string, Set<string>>();
  for (const api of pdl.apis) {
    const names = responses.get(api.name) ?? new Set<string>();
    for (const name of api.response) names.add(name);
    responses.set(api.name, names);
  }
  pdl.apis.forEach((api, index) => {
    if (api.request.length === 0) return;
    const dependencies = dependenciesOf(pdl, api.name);
    const provided = new Set(slots);
    for (const dependency of dependencies) for (const name of responses.get(dependency) ?? []) provided.add(name);
    const firstCall = scan.references.find((reference) => reference.kind === 'api' && reference.name === api.name);
    for (const { name, offset } of assigned)
      if (firstCall === undefined || offset < firstCall.offset) provided.add(name);
    api.request.forEach((parameter, at) => {
      if (provided.has(parameter)) return;
      const givers = pdl.apis
        .filter((other) => other.name !== api.name && responses.get(other.name)?.has(parameter))
        .map((other) => other.name);
      const hint =
        givers.length > 0
          ? ` (${givers.slice(0, 3).join(', ')} ${givers.length === 1 ? 'returns' : 'return'} it: a precondition?)`
          : ` (a slot "${parameter}"?)`;
      problems.push(
        pdlProblemAt(
          pdl,
          'warning',
          ['apis', index, 'request', at],
          `request parameter "${parameter}" of API "${api.name}": no slot, no response of an API it depends on and nothing the procedure assigns before calling it provides it${hint}`,
        ),
      );
    });
  });
  return problems;
}
