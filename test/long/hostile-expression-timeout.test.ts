/** A model-made expression that loops forever ends at JSONata's time limit (seconds: kept out of the fast suite). */
import { describe, expect, it } from 'vitest';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import { endsWith } from '../distill/ends-with.js';

describe('hostile expressions, timed', () => {
  it.each([
    ['an endless tail call', '{% ($f := function(){ $f() }; $f()) %}'],
    ['an exponential recursion', '{% ($x := function($n){ $n <= 0 ? 0 : $x($n - 1) + $x($n - 1) }; $x(60)) %}'],
    ['an endless loop inside $eval', '{% $eval("($f := function(){ $f() }; $f())") %}'],
  ])(
    'stops %s',
    async (_, expression) => {
      await expect(runWorkflow(endsWith(expression), { input: {} })).rejects.toMatchObject({
        code: 'WORKFLOW',
        message: expect.stringContaining('timeout'),
      });
    },
    30_000,
  );
});
