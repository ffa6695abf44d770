/**
 * A process that ran isolated cases exits once its work is done, with nothing to close: idle workers, also ones
 * that came ready only after the cases were over, do not hold it open.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

it('exits after its cases, though workers started for them came ready after the cases were done', async () => {
  const module = pathToFileURL(join(ROOT, 'src/distill/run-workflow-isolated.ts')).href;
  // Eight quick cases on up to eight workers: the first worker ready runs them all, the others start for nothing.
  const script = `
    const { runWorkflowIsolated } = await import(${JSON.stringify(module)});
    const workflow = {
      name: 'double',
      nodes: [{ id: 's', kind: 'start' }, { id: 'e', kind: 'end', output: '{% inputs.n * 2 %}' }],
      edges: [{ from: 's', to: 'e' }],
    };
    const outputs = await Promise.all(
      Array.from({ length: 8 }, (_, n) => runWorkflowIsolated(workflow, { input: { n }, jobs: 8 }).then((r) => r.output)),
    );
    console.log(JSON.stringify(outputs));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  // Killed only if it is still there long after its answer (the test's own timeout is 30 s).
  const stuck = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(stuck);
  expect(JSON.parse(out)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  expect(code).toBe(0);
});
