/** Model-made JSONata that never ends: the evaluation stops with a located WORKFLOW error instead of hanging. */
import { describe, expect, it } from 'vitest';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import { endsWith } from './ends-with.js';

describe('hostile expressions', () => {
  it('stops a runaway recursion at the depth limit', async () => {
    const deep = endsWith('{% ($s := function($n){ $n = 0 ? 0 : 1 + $s($n - 1) }; $s(100000)) %}');
    await expect(runWorkflow(deep, { input: {} })).rejects.toMatchObject({
      code: 'WORKFLOW',
      message: expect.stringMatching(/^node e \(output\): .* failed: Stack overflow/),
    });
  });

  it('still evaluates a recursion of a thousand levels', async () => {
    const fine = endsWith('{% ($s := function($n){ $n = 0 ? 0 : 1 + $s($n - 1) }; $s(1000)) %}');
    expect((await runWorkflow(fine, { input: {} })).output).toBe(1000);
  });
});
