/**
 * A distillation stage's model: it counts the stage's calls, tokens and cost on the shared runtime meter
 * (runtime/metered-model.ts), and refuses a call once the stage's step limit (`maxSteps` calls) is spent or the
 * workflow is finished, so `maxSteps` is an exact deadline and no call is spent after an accepted `finish`. The
 * refusal is a WeftError (BUDGET for the step limit) that comes out of `runToolLoop` or `generateStructured`;
 * `stopped()` tells the stage that the refusal was its own, not a budget of the caller's model (a command-wide
 * `--max-calls`), which the stage reports as a budget stop.
 */
import { WeftError } from '../errors.js';
import type { ChatModel } from '../llm/chat-model.js';
import { costOf } from '../llm/pricing.js';
import { budgetGate, createMeter, type Meter } from '../runtime/budget.js';
import { meteredModel } from '../runtime/metered-model.js';
import { uncountRefused } from '../runtime/uncount-refused.js';

export interface StepLimitedModel {
  readonly model: ChatModel;
  /** What the stage spent so far. */
  readonly meter: Readonly<Meter>;
  /** Why this stage refused a call: its step limit was spent, or the workflow was finished; else undefined. */
  stopped(): 'steps' | 'finished' | undefined;
}

export function stepLimitedModel(
  model: ChatModel,
  maxSteps: number,
  finished: () => boolean = () => false,
): StepLimitedModel {
  const meter = createMeter();
  const budget = { maxCalls: maxSteps };
  // The stage has no wall time of its own: the caller's budget (its model) carries that.
  const steps = budgetGate({ budget, meter, now: () => 0 });
  let stop: 'steps' | 'finished' | undefined;
  const metered = meteredModel(
    // A call the caller's budget refused was not made: it is not one of the stage's steps either.
    uncountRefused(model, meter),
    {
      budget,
      meter,
      now: () => 0,
      costOf: (result, modelId) => costOf([modelId ?? model.id, result.model], result.usage),
      // The caller's model is traced already (the CLI's tracedModel).
      trace: false,
    },
    {
      admit() {
        if (finished()) {
          stop = 'finished';
          throw new WeftError('ABORTED', 'the workflow is finished: no more model calls');
        }
        try {
          steps.admit();
        } catch (refused) {
          stop = 'steps';
          throw refused;
        }
      },
    },
  );
  return { model: metered, meter, stopped: () => stop };
}
