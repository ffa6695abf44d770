/**
 * The controllers a conversation with a procedure runs: the built-in ones its `controllers:` settings turn on, the
 * modules it names (`controllers.modules`), and a caller's extra ones; none with `--no-controllers`. One place, so
 * the engine and turn-level evaluation run the same set, and no caller loads the modules a second time.
 */
import { builtInControllers } from './built-in-controllers.js';
import type { Controller, ControllerMode } from './controller.js';
import { loadControllerModules } from './load-controller-modules.js';
import type { Pdl } from './pdl.js';

export async function procedureControllers(
  pdl: Pdl,
  mode: ControllerMode,
  extra: readonly Controller[] = [],
): Promise<Controller[]> {
  if (mode === 'none') return [];
  return [...builtInControllers(pdl.controllers), ...(await loadControllerModules(pdl)), ...extra];
}
