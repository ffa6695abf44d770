/**
 * The worker thread behind layoutPlanOffThread: one plan in, its layout out. dagre is synchronous and takes
 * seconds on a 10,000-node plan; here it blocks only this thread, not the server's event streams.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { layoutPlan } from './layout-plan.js';

parentPort?.postMessage(layoutPlan(workerData));
