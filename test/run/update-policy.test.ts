import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { registerUpdatePolicy, updatePolicy, updatePolicyNames } from '../../src/run/update-policies.js';
import type { UpdatePolicy } from '../../src/run/update-policy.js';
import { diamond, run } from './execution-harness.js';
import { testModel } from './test-model.js';

/** A toy policy: a routine review after every second settled attempt, and repairs as usual. */
const everySecondCompletion: UpdatePolicy = {
  name: 'every-second-completion',
  updates: true,
  reviewAfterAttempt: (settled) => settled % 2 === 0,
  barrier: false,
  countsAgainstLimit: ({ repair }) => repair,
};

describe('update policies', () => {
  it('lists the built-ins by name and refuses an unknown one, naming the known ones', () => {
    expect(updatePolicyNames().slice(0, 4)).toStrictEqual(['on-failure', 'concurrent', 'after-completion', 'none']);
    expect(() => updatePolicy('nope')).toThrow(WeftError);
    expect(() => updatePolicy('nope')).toThrow(/known: on-failure, concurrent, after-completion, none/);
  });

  it('runs a registered toy policy through execute: one review per two settled attempts', async () => {
    registerUpdatePolicy(everySecondCompletion);
    expect(updatePolicyNames()).toContain('every-second-completion');
    const model = testModel();
    // One at a time, so the four subtasks settle in turn: reviews after the 2nd and the 4th.
    const { events, promise } = run(diamond(), { model, strategy: 'every-second-completion', concurrency: 1 });
    const result = await promise;
    expect(result.status).toBe('completed');
    expect(model.count('update')).toBe(2);
    const rounds = events.filter((e) => e.type === 'plan-candidates');
    expect(rounds.map((e) => (e as { round?: number }).round)).toStrictEqual([1, 2]);

    // The same plan under 'concurrent' reviews after each of the four.
    const concurrentModel = testModel();
    await run(diamond(), { model: concurrentModel, strategy: 'concurrent', concurrency: 1 }).promise;
    expect(concurrentModel.count('update')).toBe(4);
  });

  it('names a review by its policy in the plan version it causes', async () => {
    registerUpdatePolicy(everySecondCompletion);
    let asked = 0;
    const model = testModel({
      // The first review renames d's objective, so the round makes a plan version.
      update: (call) =>
        asked++ === 0
          ? {
              subtasks: JSON.parse(JSON.stringify(diamond().subtasks)).map((s: { id: string; objective: string }) =>
                s.id === 'd' ? { ...s, objective: 'do d better' } : s,
              ),
            }
          : {},
    });
    const { events, promise } = run(diamond(), { model, strategy: 'every-second-completion', concurrency: 1 });
    await promise;
    const update = events.find((e) => e.type === 'plan-update') as { cause: string } | undefined;
    expect(update?.cause).toBe('every-second-completion review');
  });
});
