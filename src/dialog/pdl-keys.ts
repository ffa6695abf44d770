/**
 * The keys a PDL file may hold, the words people write instead, and the "unknown key" problem with its guess.
 */
import { closestWord } from '../text/edit-distance.js';
import type { FieldPath } from '../text/source-locator.js';

/** The longest name: names become tool names, which providers cap at 64. */
export const MAX_PDL_NAME_LENGTH = 64;

export const PDL_KEYS = [
  'Name',
  'Desc',
  'Detailed_desc',
  'SLOTs',
  'APIs',
  'ANSWERs',
  'Procedure',
  'PDL',
  'controllers',
  'tools',
  'allowHosts',
] as const;

export const SLOT_KEYS = ['name', 'desc', 'type'] as const;
export const API_KEYS = ['name', 'desc', 'request', 'response', 'precondition', 'pre'] as const;
export const ANSWER_KEYS = ['name', 'desc', 'precondition', 'pre'] as const;
export const CONTROLLER_KEYS = ['dependency', 'repetition', 'sessionLength', 'modules'] as const;
export const CONTROLLER_MODULE_KEYS = ['path', 'export', 'options'] as const;

/** Other words for a key (lower case), mapped to the key (lower case). */
const ALIASES: Readonly<Record<string, string>> = {
  title: 'name',
  id: 'name',
  description: 'desc',
  detailed_description: 'detailed_desc',
  detaileddesc: 'detailed_desc',
  desc_detail: 'detailed_desc',
  detail: 'detailed_desc',
  details: 'detailed_desc',
  slot: 'slots',
  api: 'apis',
  answer: 'answers',
  workflow: 'procedure',
  steps: 'procedure',
  flow: 'procedure',
  controller: 'controllers',
  allow_hosts: 'allowhosts',
  allowedhosts: 'allowhosts',
  hosts: 'allowhosts',
  params: 'request',
  parameters: 'request',
  input: 'request',
  inputs: 'request',
  args: 'request',
  arguments: 'request',
  output: 'response',
  outputs: 'response',
  returns: 'response',
  return: 'response',
  result: 'response',
  results: 'response',
  preconditions: 'precondition',
  requires: 'precondition',
  depends_on: 'precondition',
  dependson: 'precondition',
  dependencies: 'precondition',
  after: 'precondition',
  dependencies_controller: 'dependency',
  node_dependency: 'dependency',
  repeat: 'repetition',
  repetitions: 'repetition',
  api_repetition: 'repetition',
  session_length: 'sessionlength',
  length: 'sessionlength',
  conversation_length: 'sessionlength',
  maxturns: 'sessionlength',
  max_turns: 'sessionlength',
  module: 'modules',
  file: 'path',
  exports: 'export',
  settings: 'options',
  config: 'options',
};

/**
 * Unknown keys reported one by one in a map; the rest are counted. A hostile file can hold 100,000 of them, and
 * each problem is guessed at and located.
 */
export const MAX_UNKNOWN_KEYS = 20;

/** The problems for the keys of `record` not in `allowed`, each with a guess at what was meant. */
export function unknownKeys(
  record: Readonly<Record<string, unknown>>,
  allowed: readonly string[],
  path: FieldPath,
): { path: FieldPath; message: string }[] {
  const byLower = new Map(allowed.map((key) => [key.toLowerCase(), key]));
  const aliases = Object.fromEntries(Object.entries(ALIASES).filter(([, key]) => byLower.has(key)));
  const shown = allowed.filter((key) => key !== 'pre' && key !== 'PDL');
  const unknown = Object.keys(record).filter((key) => !allowed.includes(key));
  const problems: { path: FieldPath; message: string }[] = unknown.slice(0, MAX_UNKNOWN_KEYS).map((key) => {
    // A misspelt alias (`descrption`) is as good a clue as a misspelt key.
    const candidates = [...byLower.keys(), ...Object.keys(aliases)];
    // No key is long: a long one is junk, and guessing costs its length times each candidate's.
    const guess = key.length > MAX_PDL_NAME_LENGTH ? undefined : closestWord(key, candidates, aliases);
    const target =
      guess === undefined ? undefined : byLower.get(Object.hasOwn(aliases, guess) ? (aliases[guess] ?? guess) : guess);
    const suggestion = target === undefined ? '' : ` (did you mean "${target}"?)`;
    const named = key.length > MAX_PDL_NAME_LENGTH ? `${key.slice(0, MAX_PDL_NAME_LENGTH)}…` : key;
    return { path: [...path, key], message: `unknown key "${named}"${suggestion}; allowed: ${shown.join(', ')}` };
  });
  const more = unknown.length - problems.length;
  if (more > 0) problems.push({ path, message: `and ${more} more unknown keys` });
  return problems;
}
