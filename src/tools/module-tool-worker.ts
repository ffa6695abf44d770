/**
 * The worker thread of module tools (module-tools.ts): imports a tools module and describes its tools, or calls
 * one. A call that runs past its timeout blocks only this thread, which the pool terminates.
 */
import { WeftError, isWeftError } from '../errors.js';
import { serveIsolateTasks } from '../runtime/isolate-worker.js';
import { thrownMessage } from './call-tool.js';
import { type ModuleToolTask, infoOfTool, moduleToolsOfThread } from './module-tools.js';
import type { JsonValue } from './tool.js';

serveIsolateTasks(async (body, { signal }) => {
  const task = body as ModuleToolTask;
  const tools = await moduleToolsOfThread(task);
  if (task.op === 'describe') return tools.map(infoOfTool);
  const tool = tools.find((each) => each.name === task.tool);
  if (!tool) throw new WeftError('INTERNAL', `${task.shown} has no tool ${task.tool} any more`);
  let raw: unknown;
  try {
    raw = await tool.call(task.args, { signal });
  } catch (error) {
    if (isWeftError(error)) throw error;
    const retryable =
      typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
    throw new WeftError('TOOL', thrownMessage(error), { retryable });
  }
  // Only JSON crosses back, as callTool would make of it anyway (a Date becomes its string).
  let text: string | undefined;
  try {
    text = JSON.stringify(raw);
  } catch (error) {
    throw new WeftError('TOOL', `${tool.name}: its result is not JSON (${(error as Error).message})`);
  }
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
});
