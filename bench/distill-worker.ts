/**
 * One `weft worker` for the distill bench, in its own process (the cases are CPU work: workers in one process
 * would share one core). Usage: tsx bench/distill-worker.ts REDIS_URL QUEUE CONCURRENCY. Prints `ready` once it
 * takes jobs; stops on SIGTERM.
 */
import { loadToolsFile } from '../src/tools/tools-file.js';
import { runWorker } from '../src/workers/run-worker.js';

const [redisUrl, queueName, concurrency] = process.argv.slice(2);
if (!redisUrl || !queueName) throw new Error('usage: distill-worker.ts REDIS_URL QUEUE CONCURRENCY');
const tools = await loadToolsFile(new URL('./distill/tools.yaml', import.meta.url).pathname);
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
await runWorker({
  redisUrl,
  queueName,
  concurrency: Number(concurrency ?? 16),
  tools: tools.tools,
  signal: stop.signal,
  onEvent: (event) => {
    if (event.type === 'worker-ready') process.stdout.write('ready\n');
  },
});
await tools.close();
