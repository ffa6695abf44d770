/**
 * The process test/e2e/tool-crash.test.ts kills with SIGKILL during a tool loop: a run of the order plan against
 * the order service at argv[3], in the Weft home argv[2], as run `tools`.
 */
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { orderModel, orderPlan, orderTools } from '../run/tool-fixtures.js';

const [home, url] = process.argv.slice(2) as [string, string];
const store = await openRunStore({ home });
await runTask({
  task: 'place the orders',
  plan: orderPlan(['a', 'b', 'c']),
  model: orderModel(),
  store,
  home,
  runId: 'tools',
  strategy: 'none',
  tools: orderTools(url),
});
await store.close();
