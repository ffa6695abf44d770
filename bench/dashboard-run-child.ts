/**
 * The dashboard bench's run, in its own process (as `weft run` in another terminal would be): a 10,000-subtask
 * random DAG run by a model that answers at once, into the SQLite store under the given home, with the given run
 * id. Prints `{ status, ms }` when done. Not a bench itself: bench/dashboard.bench.ts starts it.
 */
import { runTask } from '../src/run/run-task.js';
import { openRunStore } from '../src/store/open-store.js';
import { instantModel } from './bench-models.js';
import { randomDag } from './random-dag.js';

const [home, runId, nodes] = process.argv.slice(2);
if (!home || !runId || !nodes) throw new Error('usage: dashboard-run-child.ts <home> <runId> <nodes>');
const count = Number(nodes);
const { workflow } = randomDag(count, { nodes: count, depth: 100, extraParents: 2 });
const started = performance.now();
const store = await openRunStore({ home });
const result = await runTask({ task: workflow.task, plan: workflow, model: instantModel(), store, home, runId });
await store.close();
process.stdout.write(`${JSON.stringify({ status: result.status, ms: performance.now() - started })}\n`);
