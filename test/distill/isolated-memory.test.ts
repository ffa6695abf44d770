/**
 * Memory in isolated workflow runs: a case that allocates past its worker's heap limit fails alone, located at its
 * node and field, and the next case runs. Allocations JSONata would make in one piece far past the limit (a range
 * of ten million, kept thirty times), which would make Node end the whole process rather than the worker, are
 * refused before they are made.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeWorkflowWorkers, runWorkflowIsolated } from '../../src/distill/run-workflow-isolated.js';
import { endsWith } from './ends-with.js';

afterAll(closeWorkflowWorkers);

const run = (output: string) =>
  runWorkflowIsolated(endsWith(output, 'hungry'), { input: {}, memoryMb: 128, timeLimitMs: 60_000, jobs: 1 });

describe('isolated runs and memory', () => {
  it.each([
    ['many ranges of a million, kept', '{% $count([1..300].{"a": [1..1000000]}) %}'],
    ['one string of many arrays', '{% $length($string([1..30].{"a": [1..1000000]})) %}'],
  ])('%s: stopped at the memory limit, naming node and field', async (_name, output) => {
    await expect(run(output)).rejects.toMatchObject({
      code: 'WORKFLOW',
      location: { field: 'node e (output)' },
      message: 'node e (output): stopped: it ran out of its 128 MB of memory (--worker-memory)',
    });
  });

  it.each([
    // Each would be one allocation of 80 MB or more: past the limit, Node would end the process, not the worker.
    ['thirty ranges of ten million', '{% $count([1..30].{"a": [1..10000000]}) %}', 'The maximum sequence length'],
    ['a range of two million', '{% $count([1..2000000]) %}', 'The maximum sequence length'],
    [
      'a sequence grown by $append',
      '{% $count($reduce([1..100], function($a, $i){ $append($a, [1..1000000]) }, [])) %}',
      'The maximum sequence length',
    ],
    ['a deep recursion', '{% ($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(10000000)) %}', 'Stack overflow'],
    [
      'a string doubled forty times',
      '{% ($f := function($s, $n){ $n = 0 ? $s : $f($s & $s, $n - 1) }; $length($f("ab", 40))) %}',
      'Invalid string length',
    ],
  ])('%s: refused before it is allocated, naming node and field', async (_name, output, reason) => {
    const error = await run(output).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'WORKFLOW', location: { field: 'node e (output)' } });
    expect((error as Error).message).toMatch(/^node e \(output\): \{% .* %\} failed: /);
    expect((error as Error).message).toContain(reason);
  });

  it('runs the next case on a new worker, and refuses a heap too small to stop a case safely', async () => {
    await expect(run('{% $count([1..300].{"a": [1..1000000]}) %}')).rejects.toMatchObject({ code: 'WORKFLOW' });
    expect((await run('{% $count([1..1000000]) %}')).output).toBe(1_000_000);
    await expect(runWorkflowIsolated(endsWith('{% 1 %}'), { input: {}, memoryMb: 64 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('memoryMb'),
    });
  });
});
