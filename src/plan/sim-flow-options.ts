/**
 * The `sim:` options of Flow's responders (sim-flow-responders.ts), registered by src/sim-responders.ts:
 *
 * | key   | value                                            | default |
 * |-------|--------------------------------------------------|---------|
 * | fail  | P(a subtask result fails verification)           | 0       |
 * | tasks | plan (and WorfBench workflow) size `n` or `a-b`  | `4-8`   |
 * | width | optional: at most this many subtasks per level   | —       |
 */
import {
  simIntegerOption,
  simOptionError,
  simProbabilityOption,
  parseSimNumber,
  type SimOptionKey,
} from '../llm/sim-options.js';

declare module '../llm/sim-options.js' {
  interface SimOptions {
    /** P(a subtask result fails verification). */
    readonly fail: number;
    /** How many subtasks a sim plan (or WorfBench workflow) has. */
    readonly tasks: { readonly min: number; readonly max: number };
    /** At most this many subtasks per level of a sim plan. */
    readonly width?: number;
  }
}

type TaskRange = { readonly min: number; readonly max: number };

const tasks: SimOptionKey<TaskRange> = {
  name: 'tasks',
  position: 80,
  default: { min: 4, max: 8 },
  alwaysShown: true,
  parse: (text) => {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(text);
    if (range) return { min: Number(range[1]), max: Number(range[2]) };
    const count = parseSimNumber('tasks', text);
    return { min: count, max: count };
  },
  check: (value) => {
    const { min, max } = (value ?? {}) as Partial<TaskRange>;
    if (!(Number.isInteger(min) && Number.isInteger(max) && min! >= 1 && min! <= max! && max! <= 10_000))
      throw simOptionError('tasks', `expected n or a-b with 1 <= a <= b <= 10000, got ${min}-${max}`);
  },
  format: ({ min, max }) => (min === max ? `${min}` : `${min}-${max}`),
};

/** Flow's sim option keys (in the places of a model id they always had). */
export const flowSimOptions: readonly SimOptionKey[] = Object.freeze([
  simProbabilityOption('fail', { position: 20, alwaysShown: true }),
  tasks as SimOptionKey,
  simIntegerOption('width', { position: 90, min: 1 }),
]);
