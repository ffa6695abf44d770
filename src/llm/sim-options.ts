/**
 * The options of a `sim:<k=v,…>` model spec (docs/contracts.md), e.g.
 * `latency=lognormal(3,0.5),fail=0.1,badjson=0.05,error=0.02,seed=7`.
 *
 * This layer owns the generic keys, the seeded mechanics every engine shares:
 *
 * | key      | value                                             | default    |
 * |----------|---------------------------------------------------|------------|
 * | latency  | `fixed(ms)`, `uniform(a,b)`, `lognormal(mu,sigma)` | `fixed(0)` |
 * | badjson  | P(a structured reply is malformed)                | 0          |
 * | error    | P(a call fails with a retryable provider error)   | 0          |
 * | seed     | integer                                           | 1          |
 * | clock    | `real` (timers) or `virtual` (virtual-clock.ts:    | `real`     |
 * |          | the order calls finish in depends on the seed only)|            |
 * | toolcalls| tool calls per conversation before the answer,    | 2          |
 * |          | when a call offers tools                          |            |
 * | toolwrong| P(a tool call names a tool that does not exist)   | 0          |
 * | toolbadargs | P(a tool call's arguments break its schema)    | 0          |
 *
 * Each engine registers its own keys next to its responders (`registerSimOptions`; src/sim-responders.ts does it
 * for Weft's engines when the library is imported) and adds them to the `SimOptions` type by augmenting this
 * module's interface. A key the registry does not know is an error that lists the known ones.
 *
 * `lognormal(mu,sigma)` is the distribution of `exp(mu + sigma·Z)` milliseconds.
 */
import { WeftError } from '../errors.js';
import { lognormalSample, uniformSample, type RandomSource } from './seeded-random.js';

export type LatencySpec =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  | { readonly kind: 'lognormal'; readonly mu: number; readonly sigma: number };

/** The sim model's options: the generic ones here, each engine's added where the engine registers them. */
export interface SimOptions {
  readonly latency: LatencySpec;
  /** P(a structured reply is malformed); the responders apply it (sim-bad-json.ts). */
  readonly badjson: number;
  readonly error: number;
  readonly seed: number;
  /** `virtual`: latency is simulated time (virtual-clock.ts), so load cannot reorder calls and no real time passes. */
  readonly clock: 'real' | 'virtual';
  /** Tool calls per conversation before the final answer, when a call offers tools (sim-model.ts). */
  readonly toolcalls: number;
  /** P(a tool call names a tool that does not exist). */
  readonly toolwrong: number;
  /** P(a tool call's arguments break the tool's schema). */
  readonly toolbadargs: number;
}

/** One option key of the `sim:` spec. */
export interface SimOptionKey<T = unknown> {
  readonly name: string;
  /**
   * Where the key stands in a model's id (ascending; keys without one come last, by name), so an id reads the same
   * whichever engine registered first, and the ids of existing runs stay as they were.
   */
  readonly position?: number;
  /** The value when a spec leaves the key out; none for an optional key. */
  readonly default?: T;
  /** Shown in the id even at its default (else only when it differs from it, or is set when optional). */
  readonly alwaysShown?: boolean;
  /** The value from its spec text; throws `simOptionError(name, …)` when it is bad. */
  parse(text: string): T;
  /** Checks a value given in code (`simModel({ … })`) with the spec's rules; throws `simOptionError`. */
  check(value: unknown): void;
  /** Its spec text (default: `String(value)`); parse(format(v)) gives v back. */
  format?(value: T): string;
  /**
   * Reads what the value names (a file, relative to `cwd`) when a model is made from a spec (createModel); the
   * responders see the result as `context.loaded.get(name)`. A model made in code is handed it in `loaded`.
   */
  load?(value: T, cwd: string): Promise<unknown>;
}

const registry = new Map<string, SimOptionKey>();

/**
 * Makes the `sim:` spec accept these keys. A key has one owner: registering another key under a taken name fails
 * (registering the same object again does nothing). Returns a function that unregisters them.
 */
export function registerSimOptions(keys: readonly SimOptionKey[]): () => void {
  for (const key of keys) {
    if (typeof key?.name !== 'string' || !/^[a-z][a-z0-9]*$/.test(key.name)) {
      throw new WeftError(
        'BAD_INPUT',
        `a sim option needs a name of lowercase letters and digits, got ${JSON.stringify(key?.name)}`,
        {
          location: { field: 'name' },
        },
      );
    }
    if (typeof key.parse !== 'function' || typeof key.check !== 'function') {
      throw new WeftError('BAD_INPUT', `the sim option "${key.name}" needs parse and check functions`, {
        location: { field: key.name },
      });
    }
    const existing = registry.get(key.name);
    if (existing !== undefined && existing !== key) {
      throw new WeftError('BAD_INPUT', `the sim option "${key.name}" is registered already`, {
        location: { field: key.name },
      });
    }
  }
  for (const key of keys) registry.set(key.name, key);
  return () => {
    for (const key of keys) if (registry.get(key.name) === key) registry.delete(key.name);
  };
}

/** The registered keys in id order. */
export function simOptionKeys(): SimOptionKey[] {
  return [...registry.values()].sort(
    (a, b) =>
      (a.position ?? Number.POSITIVE_INFINITY) - (b.position ?? Number.POSITIVE_INFINITY) ||
      a.name.localeCompare(b.name),
  );
}

/** Every registered key at its default (optional keys left out). */
export function defaultSimOptions(): SimOptions {
  const options: Record<string, unknown> = {};
  for (const key of simOptionKeys()) if (key.default !== undefined) options[key.name] = key.default;
  return Object.freeze(options) as unknown as SimOptions;
}

/** Parses the part after `sim:` (a leading `sim:` is accepted too). An empty string gives the defaults. */
export function parseSimOptions(text: string): SimOptions {
  const body = text.trim().replace(/^sim:/, '').trim();
  const options: Record<string, unknown> = {};
  for (const part of splitTopLevel(body)) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    if (equals < 0) throw simOptionError(trimmed, `expected key=value, got ${JSON.stringify(trimmed)}`);
    const name = trimmed.slice(0, equals).trim();
    const key = knownKey(name);
    if (Object.hasOwn(options, name)) throw simOptionError(name, 'given twice');
    options[name] = key.parse(trimmed.slice(equals + 1).trim());
  }
  return validateSimOptions({ ...defaultSimOptions(), ...options } as SimOptions);
}

/** Checks options built in code (e.g. `simModel({ fail: 0.2 })`) with the same rules as the spec string. */
export function validateSimOptions(options: SimOptions): SimOptions {
  for (const [name, value] of Object.entries(options)) {
    const key = knownKey(name);
    if (value !== undefined) key.check(value);
  }
  for (const key of registry.values()) {
    if (key.default !== undefined && (options as unknown as Record<string, unknown>)[key.name] === undefined)
      throw simOptionError(key.name, 'missing (give it, or start from defaultSimOptions())');
  }
  return Object.freeze({ ...options });
}

/** The canonical spec text of options (what `sim:` ids show). */
export function formatSimOptions(options: SimOptions): string {
  const parts: string[] = [];
  const values = options as unknown as Record<string, unknown>;
  for (const key of simOptionKeys()) {
    const value = values[key.name];
    if (value === undefined) continue;
    const text = key.format ? key.format(value) : String(value);
    const shown =
      key.alwaysShown === true ||
      key.default === undefined ||
      text !== (key.format ? key.format(key.default) : String(key.default));
    if (shown) parts.push(`${key.name}=${text}`);
  }
  return parts.join(',');
}

export function formatLatency(latency: LatencySpec): string {
  switch (latency.kind) {
    case 'fixed':
      return `fixed(${latency.ms})`;
    case 'uniform':
      return `uniform(${latency.min},${latency.max})`;
    case 'lognormal':
      return `lognormal(${latency.mu},${latency.sigma})`;
  }
}

/** One latency in milliseconds (never negative). */
export function sampleLatencyMs(latency: LatencySpec, random: RandomSource): number {
  switch (latency.kind) {
    case 'fixed':
      return latency.ms;
    case 'uniform':
      return uniformSample(random, latency.min, latency.max);
    case 'lognormal':
      return lognormalSample(random, latency.mu, latency.sigma);
  }
}

/** Parses `fixed(x)`, `uniform(a,b)` or `lognormal(mu,sigma)`; errors name the `latency` key. */
export function parseLatency(text: string): LatencySpec {
  const match = /^([a-z]+)\s*\(([^()]*)\)$/i.exec(text.trim());
  if (!match)
    throw simOptionError(
      'latency',
      `expected fixed(ms), uniform(a,b) or lognormal(mu,sigma), got ${JSON.stringify(text)}`,
    );
  const name = match[1]!.toLowerCase();
  const args = match[2]!.split(',').map((arg) => arg.trim());
  const numbers = args.map((arg) => parseSimNumber('latency', arg));
  const expectArgs = (count: number): void => {
    if (args.length !== count)
      throw simOptionError('latency', `${name}() takes ${count} argument(s), got ${args.length}`);
  };
  let latency: LatencySpec;
  switch (name) {
    case 'fixed':
      expectArgs(1);
      latency = { kind: 'fixed', ms: numbers[0]! };
      break;
    case 'uniform':
      expectArgs(2);
      latency = { kind: 'uniform', min: numbers[0]!, max: numbers[1]! };
      break;
    case 'lognormal':
      expectArgs(2);
      latency = { kind: 'lognormal', mu: numbers[0]!, sigma: numbers[1]! };
      break;
    default:
      throw simOptionError('latency', `unknown distribution ${JSON.stringify(name)} (use fixed, uniform or lognormal)`);
  }
  checkLatency(latency);
  return latency;
}

function checkLatency(latency: LatencySpec): void {
  const finite = (value: number): boolean => typeof value === 'number' && Number.isFinite(value);
  switch (latency.kind) {
    case 'fixed':
      if (!(finite(latency.ms) && latency.ms >= 0))
        throw simOptionError('latency', `fixed(ms) needs ms >= 0, got ${latency.ms}`);
      return;
    case 'uniform':
      if (!(finite(latency.min) && finite(latency.max) && latency.min >= 0 && latency.min <= latency.max)) {
        throw simOptionError('latency', `uniform(a,b) needs 0 <= a <= b, got ${latency.min}, ${latency.max}`);
      }
      return;
    case 'lognormal':
      if (!(finite(latency.mu) && finite(latency.sigma) && latency.sigma >= 0)) {
        throw simOptionError(
          'latency',
          `lognormal(mu,sigma) needs finite mu and sigma >= 0, got ${latency.mu}, ${latency.sigma}`,
        );
      }
      return;
    default:
      throw simOptionError('latency', `unknown latency kind ${JSON.stringify((latency as { kind: unknown }).kind)}`);
  }
}

/** The error of a bad `sim:` option: MODEL_SPEC, naming the key as its field. */
export function simOptionError(key: string, message: string): WeftError {
  return new WeftError('MODEL_SPEC', `bad sim option ${JSON.stringify(key)}: ${message}`, { location: { field: key } });
}

/** A probability key (0 to 1). */
export function simProbabilityOption(
  name: string,
  settings: { readonly position?: number; readonly default?: number; readonly alwaysShown?: boolean } = {},
): SimOptionKey<number> {
  return {
    name,
    ...(settings.position === undefined ? {} : { position: settings.position }),
    default: settings.default ?? 0,
    ...(settings.alwaysShown === undefined ? {} : { alwaysShown: settings.alwaysShown }),
    parse: (text) => parseSimNumber(name, text),
    check: (value) => {
      if (!(typeof value === 'number' && value >= 0 && value <= 1))
        throw simOptionError(name, `must be a probability in [0, 1], got ${String(value)}`);
    },
  };
}

/** An integer key from `min` to `max`; optional (no default) when `settings.default` is left out. */
export function simIntegerOption(
  name: string,
  settings: {
    readonly position?: number;
    readonly default?: number;
    readonly alwaysShown?: boolean;
    readonly min?: number;
    readonly max?: number;
  } = {},
): SimOptionKey<number> {
  const min = settings.min ?? Number.MIN_SAFE_INTEGER;
  const max = settings.max ?? Number.MAX_SAFE_INTEGER;
  const range =
    settings.min === undefined && settings.max === undefined
      ? 'an integer'
      : settings.max === undefined
        ? `an integer >= ${min}`
        : `an integer from ${min} to ${max}`;
  return {
    name,
    ...(settings.position === undefined ? {} : { position: settings.position }),
    ...(settings.default === undefined ? {} : { default: settings.default }),
    ...(settings.alwaysShown === undefined ? {} : { alwaysShown: settings.alwaysShown }),
    parse: (text) => parseInteger(name, text),
    check: (value) => {
      if (!(Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max))
        throw simOptionError(name, `expected ${range}, got ${String(value)}`);
    },
  };
}

/** An optional file path (relative to the working folder; no commas, which separate the spec's options). */
export function simPathOption(
  name: string,
  what: string,
  settings: { readonly position?: number; readonly load?: (path: string, cwd: string) => Promise<unknown> } = {},
): SimOptionKey<string> {
  return {
    name,
    ...(settings.position === undefined ? {} : { position: settings.position }),
    parse: (text) => text,
    check: (value) => {
      if (!(typeof value === 'string' && value.trim() !== '' && !value.includes(',')))
        throw simOptionError(name, `expected the path of ${what} without commas, got ${JSON.stringify(value)}`);
    },
    ...(settings.load === undefined ? {} : { load: settings.load }),
  };
}

function knownKey(name: string): SimOptionKey {
  const key = registry.get(name);
  if (key === undefined)
    throw simOptionError(
      name,
      `unknown option (known: ${simOptionKeys()
        .map((known) => known.name)
        .join(', ')})`,
    );
  return key;
}

/** A number from its spec text; the error names the key. */
export function parseSimNumber(key: string, text: string): number {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    throw simOptionError(key, `expected a number, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function parseInteger(key: string, text: string): number {
  const value = parseSimNumber(key, text);
  if (!Number.isSafeInteger(value)) throw simOptionError(key, `expected an integer, got ${JSON.stringify(text)}`);
  return value;
}

/** Splits on commas outside parentheses: `latency=uniform(1,2),fail=0.1` → two parts. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

// The generic keys, at the places in ids they always had.
registerSimOptions([
  {
    name: 'latency',
    position: 10,
    default: { kind: 'fixed', ms: 0 },
    alwaysShown: true,
    parse: parseLatency,
    check: (value) => checkLatency(value as LatencySpec),
    format: (value) => formatLatency(value as LatencySpec),
  } satisfies SimOptionKey<LatencySpec> as SimOptionKey,
  simProbabilityOption('badjson', { position: 30, alwaysShown: true }),
  simProbabilityOption('error', { position: 40, alwaysShown: true }),
  simIntegerOption('seed', { position: 70, default: 1, alwaysShown: true }),
  {
    name: 'clock',
    position: 100,
    default: 'real',
    parse: (text) => {
      if (text !== 'real' && text !== 'virtual')
        throw simOptionError('clock', `expected real or virtual, got ${JSON.stringify(text)}`);
      return text;
    },
    check: (value) => {
      if (value !== 'real' && value !== 'virtual')
        throw simOptionError('clock', `expected real or virtual, got ${String(value)}`);
    },
  } satisfies SimOptionKey<'real' | 'virtual'> as SimOptionKey,
  simIntegerOption('toolcalls', { position: 120, default: 2, min: 0, max: 1000 }),
  simProbabilityOption('toolwrong', { position: 130 }),
  simProbabilityOption('toolbadargs', { position: 140 }),
]);
