/**
 * `npm run example:distill-suite [-- --variant all --mistake 0.1 --task gcd …]`: the distillation suite offline,
 * in one command. Starts the business API in this process on a free port, points BUSINESS_API_URL at it, and runs
 * `weft distill eval` over this folder with the sim model (which follows each task's reference workflow in the
 * execute stage and rebuilds it, with the given mistake rate, in the summarize stage), printing the table.
 * Other flags pass through to `weft distill eval` (`--json`, `--concurrency N`, `--task NAME`).
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBusinessApi } from '../business-api/business-api.js';
import { main } from '../../src/cli/main.js';

const values: Record<string, string> = { variant: 'all', mistake: '0.1', seed: '1' };
// --variant, --mistake and --seed are ours; everything else goes to `weft distill eval` as given.
const passThrough: string[] = [];
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const match = /^--(variant|mistake|seed)(?:=(.*))?$/.exec(args[index] as string);
  if (!match) passThrough.push(args[index] as string);
  else values[match[1] as string] = match[2] ?? args[++index] ?? '';
}

const api = await startBusinessApi({ port: 0 });
process.env.BUSINESS_API_URL = api.url;
process.stderr.write(`business API on ${api.url} (in this process)\n`);
try {
  process.exitCode = await main([
    'distill',
    'eval',
    '--suite',
    dirname(fileURLToPath(import.meta.url)),
    '--model',
    `sim:seed=${values.seed},mistake=${values.mistake}`,
    '--variant',
    values.variant as string,
    ...passThrough,
  ]);
} finally {
  await api.close();
}
