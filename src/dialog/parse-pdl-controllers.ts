/**
 * The `controllers:` section of a PDL file: which built-in controllers run, their settings, and modules of the
 * user's with more. Every problem is reported at its path; a setting with a problem is left out (its default holds).
 *
 *   controllers:
 *     dependency: post          # true | false | pre | post | both
 *     repetition: { limit: 3 }  # true | false | { limit, rule: safe | count | paper } (a number: { limit })
 *     sessionLength: 30         # true | false | { maxTurns } (a number is short for { maxTurns })
 *     modules: [{ path: ./my-controllers.js, export: strict, options: { … } }]
 */
import { isAbsolute, resolve } from 'node:path';
import { describeValue } from '../text/describe-value.js';
import type { FieldPath } from '../text/source-locator.js';
import { type PdlControllerModule, type PdlControllerSettings, REPETITION_RULES, type RepetitionRule } from './pdl.js';
import { CONTROLLER_KEYS, CONTROLLER_MODULE_KEYS, unknownKeys } from './pdl-keys.js';

/** Far above any real setting; a bigger number is a typo. */
export const MAX_REPETITION_LIMIT = 1_000;
export const MAX_SESSION_TURNS = 10_000;
export const MAX_CONTROLLER_MODULES = 50;

type Report = (path: FieldPath, message: string) => void;

const DEPENDENCY_MODES = [true, false, 'pre', 'post', 'both'] as const;

export function parseControllerSettings(
  value: unknown,
  path: FieldPath,
  baseDir: string,
  report: Report,
): PdlControllerSettings {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    report(path, `expected a map of controller settings (${CONTROLLER_KEYS.join(', ')}), got ${describeValue(value)}`);
    return {};
  }
  for (const problem of unknownKeys(value, CONTROLLER_KEYS, path)) report(problem.path, problem.message);
  const settings: {
    dependency?: PdlControllerSettings['dependency'];
    repetition?: PdlControllerSettings['repetition'];
    sessionLength?: PdlControllerSettings['sessionLength'];
    modules?: PdlControllerModule[];
  } = {};

  const dependency = value.dependency;
  if (dependency !== undefined && dependency !== null) {
    if ((DEPENDENCY_MODES as readonly unknown[]).includes(dependency)) {
      settings.dependency = dependency as PdlControllerSettings['dependency'];
    } else {
      report([...path, 'dependency'], `expected true, false, pre, post or both, got ${shown(dependency)}`);
    }
  }
  const repetition = repetitionSetting(value.repetition, [...path, 'repetition'], report);
  if (repetition !== undefined) settings.repetition = repetition;
  const length = switchOrLimit(value.sessionLength, [...path, 'sessionLength'], 'maxTurns', MAX_SESSION_TURNS, report);
  if (length !== undefined) settings.sessionLength = length;
  const modules = controllerModules(value.modules, [...path, 'modules'], baseDir, report);
  if (modules !== undefined) settings.modules = modules;
  return settings;
}

/** `true`, `false`, `n`, or `{ limit?: n, rule?: safe | count | paper }`. */
function repetitionSetting(value: unknown, path: FieldPath, report: Report): PdlControllerSettings['repetition'] {
  if (!isRecord(value) || !Object.hasOwn(value, 'rule')) {
    return switchOrLimit(value, path, 'limit', MAX_REPETITION_LIMIT, report, ['rule']);
  }
  const { rule, ...rest } = value;
  const limit = switchOrLimit(rest, path, 'limit', MAX_REPETITION_LIMIT, report, ['rule']);
  if (rule === undefined || rule === null) return limit;
  if (!(REPETITION_RULES as readonly unknown[]).includes(rule)) {
    report([...path, 'rule'], `expected safe, count or paper, got ${shown(rule)}`);
    return limit;
  }
  return { ...(typeof limit === 'object' ? limit : {}), rule: rule as RepetitionRule };
}

/** `true`, `false`, `{ <key>: n }`, or `n` for `{ <key>: n }`; `also` are more keys the map may hold. */
function switchOrLimit<Key extends string>(
  value: unknown,
  path: FieldPath,
  key: Key,
  max: number,
  report: Report,
  also: readonly string[] = [],
): boolean | { readonly [K in Key]?: number } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  const number = (candidate: unknown, at: FieldPath): number | undefined => {
    if (typeof candidate === 'number' && Number.isInteger(candidate) && candidate >= 1 && candidate <= max)
      return candidate;
    report(at, `expected a whole number from 1 to ${max}, got ${shown(candidate)}`);
    return undefined;
  };
  if (typeof value === 'number') {
    const n = number(value, path);
    return n === undefined ? undefined : ({ [key]: n } as { [K in Key]?: number });
  }
  if (!isRecord(value)) {
    report(path, `expected true, false or { ${key}: N }, got ${describeValue(value)}`);
    return undefined;
  }
  for (const problem of unknownKeys(value, [key, ...also], path)) report(problem.path, problem.message);
  if (value[key] === undefined || value[key] === null) return {};
  const n = number(value[key], [...path, key]);
  return n === undefined ? undefined : ({ [key]: n } as { [K in Key]?: number });
}

function controllerModules(
  value: unknown,
  path: FieldPath,
  baseDir: string,
  report: Report,
): PdlControllerModule[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    report(path, `expected a list of modules ({ path, export?, options? }), got ${describeValue(value)}`);
    return undefined;
  }
  if (value.length > MAX_CONTROLLER_MODULES) {
    report(path, `lists ${value.length} modules; at most ${MAX_CONTROLLER_MODULES}`);
    return undefined;
  }
  const modules: PdlControllerModule[] = [];
  value.forEach((entry: unknown, index) => {
    const at = [...path, index];
    // A bare path is the common case: `modules: [./strict.js]`.
    const record = typeof entry === 'string' ? { path: entry } : entry;
    if (!isRecord(record)) {
      report(at, `expected a module ({ path, export?, options? }), got ${describeValue(entry)}`);
      return;
    }
    let problems = 0;
    const problem: Report = (where, message) => {
      problems++;
      report(where, message);
    };
    for (const unknown of unknownKeys(record, CONTROLLER_MODULE_KEYS, at)) problem(unknown.path, unknown.message);
    const modulePath = record.path;
    if (typeof modulePath !== 'string' || modulePath.trim() === '') {
      problem(
        [...at, 'path'],
        modulePath === undefined
          ? 'missing required field "path" (the module, relative to the PDL file)'
          : `expected a path, got ${shown(modulePath)}`,
      );
    }
    const exportName = record.export;
    if (exportName !== undefined && (typeof exportName !== 'string' || exportName === '')) {
      problem([...at, 'export'], `expected the name of an export, got ${shown(exportName)}`);
    }
    const options = record.options;
    if (options !== undefined && options !== null && !isRecord(options)) {
      problem([...at, 'options'], `expected a map of options, got ${describeValue(options)}`);
    }
    if (problems > 0 || typeof modulePath !== 'string') return;
    modules.push({
      path: isAbsolute(modulePath) ? modulePath : resolve(baseDir, modulePath),
      ...(typeof exportName === 'string' ? { export: exportName } : {}),
      ...(isRecord(options) ? { options } : {}),
    });
  });
  return modules;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A short rendering of a wrong value for a message: never a whole document. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describeValue(value);
}
