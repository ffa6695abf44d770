/**
 * The options of a `sim:<k=v,…>` model spec (docs/contracts.md), e.g.
 * `latency=lognormal(3,0.5),fail=0.1,badjson=0.05,error=0.02,seed=7`.
 *
 * | key      | value                                             | default    |
 * |----------|---------------------------------------------------|------------|
 * | latency  | `fixed(ms)`, `uniform(a,b)`, `lognormal(mu,sigma)` | `fixed(0)` |
 * | fail     | P(a subtask result fails verification)            | 0          |
 * | badjson  | P(a structured reply is malformed)                | 0          |
 * | error    | P(a call fails with a retryable provider error)   | 0          |
 * | accuracy | teams: P(an agent's own answer is right), and of  | 1          |
 * |          | rating peers and ranking agents knowingly         |            |
 * | follow   | teams: P(a wrong agent takes its peers' majority) | 0.5        |
 * | seed     | integer                                           | 1          |
 * | tasks    | plan (and WorfBench workflow) size `n` or `a-b`   | `4-8`      |
 * | width    | optional: at most this many subtasks per level    | —          |
 * | clock    | `real` (timers) or `virtual` (virtual-clock.ts:    | `real`     |
 * |          | the order calls finish in depends on the seed only)|            |
 * | answers  | optional: a team dataset (JSONL) whose gold       | —          |
 * |          | answers the sim knows (sim-answer-key.ts)         |            |
 * | toolcalls| tool calls per conversation before the answer,    | 2          |
 * |          | when a call offers tools                          |            |
 * | toolwrong| P(a tool call names a tool that does not exist)   | 0          |
 * | toolbadargs | P(a tool call's arguments break its schema)    | 0          |
 * | violate  | dialog bot: P(a move that breaks the procedure:   | 0          |
 * |          | an unavailable API, or a repeat) (dialog/sim-bot.ts) |            |
 * | noise    | dialog judge: P(a goal's or turn's verdict flips) | 0          |
 * |          | (dialog/sim-judge.ts)                             |            |
 * | mistake  | distillation summarizer: P(each graph-building    | 0          |
 * |          | call carries a mistake) (distill/sim-summarize.ts)|            |
 * | solvefail| distillation execute stage: P(a reply gives up the | 0          |
 * |          | instance), drawn per rollout (distill/sim-solve.ts)|            |
 * | reference| optional: a workflow file (JSON or YAML) that the | —          |
 * |          | sim follows when it solves or distils             |            |
 *
 * `lognormal(mu,sigma)` is the distribution of `exp(mu + sigma·Z)` milliseconds. The team behaviour behind
 * `accuracy` and `follow` is described in src/team/sim-team.ts; the right answer is the literal `correct`.
 */
import { WeftError } from '../errors.js';
import { lognormalSample, uniformSample, type RandomSource } from './seeded-random.js';

export type LatencySpec =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  | { readonly kind: 'lognormal'; readonly mu: number; readonly sigma: number };

export interface SimOptions {
  readonly latency: LatencySpec;
  readonly fail: number;
  readonly badjson: number;
  readonly error: number;
  readonly accuracy: number;
  readonly follow: number;
  readonly seed: number;
  readonly tasks: { readonly min: number; readonly max: number };
  readonly width?: number;
  /** `virtual`: latency is simulated time (virtual-clock.ts), so load cannot reorder calls and no real time passes. */
  readonly clock: 'real' | 'virtual';
  /** A team dataset file whose gold answers the simulator knows (sim-answer-key.ts); relative to the working folder. */
  readonly answers?: string;
  /** Tool calls per conversation before the final answer, when a call offers tools (sim-model.ts). */
  readonly toolcalls: number;
  /** P(a tool call names a tool that does not exist). */
  readonly toolwrong: number;
  /** P(a tool call's arguments break the tool's schema). */
  readonly toolbadargs: number;
  /** Dialog bot (purpose `converse`): P(a move that breaks the procedure — an unavailable API, or a repeat). */
  readonly violate: number;
  /** Dialog judge (purpose `judge`): P(each goal's, or a turn's, verdict is flipped). */
  readonly noise: number;
  /** Distillation summarizer (purpose `distill`): P(a graph-building call carries a mistake). */
  readonly mistake: number;
  /**
   * Distillation execute stage (purpose `solve`): P(a reply gives up the instance instead of its next step), drawn
   * by the call's key and attempt (the rollout), so rollouts of one input differ.
   */
  readonly solvefail: number;
  /**
   * A reference workflow file the sim follows in the execute (`solve`) and summarize (`distill`) stages of
   * distillation (distill/distill-sim.ts); relative to the working folder. The distillation harness can hand the
   * sim a reference in code instead.
   */
  readonly reference?: string;
}

export const DEFAULT_SIM_OPTIONS: SimOptions = Object.freeze<SimOptions>({
  latency: { kind: 'fixed', ms: 0 },
  fail: 0,
  badjson: 0,
  error: 0,
  accuracy: 1,
  follow: 0.5,
  seed: 1,
  tasks: { min: 4, max: 8 },
  clock: 'real',
  toolcalls: 2,
  toolwrong: 0,
  toolbadargs: 0,
  violate: 0,
  noise: 0,
  mistake: 0,
  solvefail: 0,
});

const KEYS = [
  'latency',
  'fail',
  'badjson',
  'error',
  'accuracy',
  'follow',
  'seed',
  'tasks',
  'width',
  'clock',
  'answers',
  'toolcalls',
  'toolwrong',
  'toolbadargs',
  'violate',
  'noise',
  'mistake',
  'solvefail',
  'reference',
] as const;
type SimKey = (typeof KEYS)[number];

/** Parses the part after `sim:` (a leading `sim:` is accepted too). An empty string gives the defaults. */
export function parseSimOptions(text: string): SimOptions {
  const body = text.trim().replace(/^sim:/, '').trim();
  const options: { -readonly [K in keyof SimOptions]?: SimOptions[K] } = {};
  const seen = new Set<string>();
  for (const part of splitTopLevel(body)) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    if (equals < 0) throw simError(trimmed, `expected key=value, got ${JSON.stringify(trimmed)}`);
    const key = trimmed.slice(0, equals).trim();
    const value = trimmed.slice(equals + 1).trim();
    if (!(KEYS as readonly string[]).includes(key)) {
      throw simError(key, `unknown option (known: ${KEYS.join(', ')})`);
    }
    if (seen.has(key)) throw simError(key, 'given twice');
    seen.add(key);
    assignOption(options, key as SimKey, value);
  }
  return validateSimOptions({ ...DEFAULT_SIM_OPTIONS, ...options });
}

/** Checks options built in code (e.g. `simModel({ fail: 0.2 })`) with the same rules as the spec string. */
export function validateSimOptions(options: SimOptions): SimOptions {
  const probabilities = [
    'fail',
    'badjson',
    'error',
    'accuracy',
    'follow',
    'toolwrong',
    'toolbadargs',
    'violate',
    'noise',
    'mistake',
    'solvefail',
  ] as const;
  for (const key of probabilities) {
    checkProbability(key, options[key]);
  }
  if (!(Number.isInteger(options.toolcalls) && options.toolcalls >= 0 && options.toolcalls <= 1000)) {
    throw simError('toolcalls', `expected an integer from 0 to 1000, got ${String(options.toolcalls)}`);
  }
  if (!Number.isSafeInteger(options.seed)) throw simError('seed', `expected an integer, got ${String(options.seed)}`);
  const { min, max } = options.tasks;
  if (!(Number.isInteger(min) && Number.isInteger(max) && min >= 1 && min <= max && max <= 10_000)) {
    throw simError('tasks', `expected n or a-b with 1 <= a <= b <= 10000, got ${min}-${max}`);
  }
  if (options.width !== undefined && !(Number.isInteger(options.width) && options.width >= 1)) {
    throw simError('width', `expected an integer >= 1, got ${String(options.width)}`);
  }
  if (options.clock !== 'real' && options.clock !== 'virtual')
    throw simError('clock', `expected real or virtual, got ${String(options.clock)}`);
  if (
    options.answers !== undefined &&
    !(typeof options.answers === 'string' && options.answers.trim() !== '' && !options.answers.includes(','))
  ) {
    throw simError(
      'answers',
      `expected the path of a team dataset (JSONL) without commas, got ${JSON.stringify(options.answers)}`,
    );
  }
  if (
    options.reference !== undefined &&
    !(typeof options.reference === 'string' && options.reference.trim() !== '' && !options.reference.includes(','))
  ) {
    throw simError(
      'reference',
      `expected the path of a workflow file without commas, got ${JSON.stringify(options.reference)}`,
    );
  }
  checkLatency(options.latency);
  return Object.freeze({ ...options });
}

/** The canonical spec text of options (what `sim:` ids show). */
export function formatSimOptions(options: SimOptions): string {
  const parts = [`latency=${formatLatency(options.latency)}`];
  for (const key of ['fail', 'badjson', 'error', 'accuracy'] as const) parts.push(`${key}=${options[key]}`);
  // Shown only when set, so the ids of models that never answer as a team stay as they were.
  if (options.follow !== DEFAULT_SIM_OPTIONS.follow) parts.push(`follow=${options.follow}`);
  parts.push(`seed=${options.seed}`);
  const { min, max } = options.tasks;
  parts.push(`tasks=${min === max ? min : `${min}-${max}`}`);
  if (options.width !== undefined) parts.push(`width=${options.width}`);
  if (options.clock !== DEFAULT_SIM_OPTIONS.clock) parts.push(`clock=${options.clock}`);
  if (options.answers !== undefined) parts.push(`answers=${options.answers}`);
  // Tool and dialog options too, so ids of models that never call tools or converse stay as they were.
  for (const key of ['toolcalls', 'toolwrong', 'toolbadargs', 'violate', 'noise', 'mistake', 'solvefail'] as const) {
    if (options[key] !== DEFAULT_SIM_OPTIONS[key]) parts.push(`${key}=${options[key]}`);
  }
  if (options.reference !== undefined) parts.push(`reference=${options.reference}`);
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
    throw simError('latency', `expected fixed(ms), uniform(a,b) or lognormal(mu,sigma), got ${JSON.stringify(text)}`);
  const name = match[1]!.toLowerCase();
  const args = match[2]!.split(',').map((arg) => arg.trim());
  const numbers = args.map((arg) => parseNumber('latency', arg));
  const expectArgs = (count: number): void => {
    if (args.length !== count) throw simError('latency', `${name}() takes ${count} argument(s), got ${args.length}`);
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
      throw simError('latency', `unknown distribution ${JSON.stringify(name)} (use fixed, uniform or lognormal)`);
  }
  checkLatency(latency);
  return latency;
}

function assignOption(
  options: { -readonly [K in keyof SimOptions]?: SimOptions[K] },
  key: SimKey,
  value: string,
): void {
  switch (key) {
    case 'latency':
      options.latency = parseLatency(value);
      return;
    case 'fail':
    case 'badjson':
    case 'error':
    case 'accuracy':
    case 'follow':
    case 'toolwrong':
    case 'toolbadargs':
    case 'violate':
    case 'noise':
    case 'mistake':
    case 'solvefail':
      options[key] = parseNumber(key, value);
      return;
    case 'toolcalls':
      options.toolcalls = parseInteger('toolcalls', value);
      return;
    case 'seed':
      options.seed = parseInteger('seed', value);
      return;
    case 'tasks': {
      const range = /^(\d+)\s*-\s*(\d+)$/.exec(value);
      if (range) options.tasks = { min: Number(range[1]), max: Number(range[2]) };
      else {
        const count = parseInteger('tasks', value);
        options.tasks = { min: count, max: count };
      }
      return;
    }
    case 'width':
      options.width = parseInteger('width', value);
      return;
    case 'clock':
      if (value !== 'real' && value !== 'virtual')
        throw simError('clock', `expected real or virtual, got ${JSON.stringify(value)}`);
      options.clock = value;
      return;
    case 'answers':
      options.answers = value;
      return;
    case 'reference':
      options.reference = value;
      return;
  }
}

function checkLatency(latency: LatencySpec): void {
  const finite = (value: number): boolean => typeof value === 'number' && Number.isFinite(value);
  switch (latency.kind) {
    case 'fixed':
      if (!(finite(latency.ms) && latency.ms >= 0))
        throw simError('latency', `fixed(ms) needs ms >= 0, got ${latency.ms}`);
      return;
    case 'uniform':
      if (!(finite(latency.min) && finite(latency.max) && latency.min >= 0 && latency.min <= latency.max)) {
        throw simError('latency', `uniform(a,b) needs 0 <= a <= b, got ${latency.min}, ${latency.max}`);
      }
      return;
    case 'lognormal':
      if (!(finite(latency.mu) && finite(latency.sigma) && latency.sigma >= 0)) {
        throw simError(
          'latency',
          `lognormal(mu,sigma) needs finite mu and sigma >= 0, got ${latency.mu}, ${latency.sigma}`,
        );
      }
      return;
    default:
      throw simError('latency', `unknown latency kind ${JSON.stringify((latency as { kind: unknown }).kind)}`);
  }
}

function checkProbability(key: string, value: number): void {
  if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
    throw simError(key, `must be a probability in [0, 1], got ${String(value)}`);
  }
}

function parseNumber(key: string, text: string): number {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    throw simError(key, `expected a number, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function parseInteger(key: string, text: string): number {
  const value = parseNumber(key, text);
  if (!Number.isSafeInteger(value)) throw simError(key, `expected an integer, got ${JSON.stringify(text)}`);
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

function simError(key: string, message: string): WeftError {
  return new WeftError('MODEL_SPEC', `bad sim option ${JSON.stringify(key)}: ${message}`, { location: { field: key } });
}
