/**
 * The `sim:` model's responders of Weft's own engines, registered when the library is imported (src/index.ts
 * re-exports this module, so `import 'weft'` runs it): the model layer names no engine, each engine keeps its
 * responders next to its prompts, and this file — like role-kinds.ts — puts them together. A new engine's
 * responders are its own file plus one entry here.
 */
import { dialogSimResponders } from './dialog/sim-dialog.js';
import { worfbenchSimResponders } from './eval/sim-worfbench.js';
import { registerSimResponder, simResponderFor, type SimResponder } from './llm/sim-responders.js';
import { flowSimResponders } from './plan/sim-flow-responders.js';
import { runSimResponders } from './run/sim-task-check.js';
import { teamSimResponders } from './team/sim-team-responders.js';

/** Every built-in responder by purpose. */
export const BUILTIN_SIM_RESPONDERS: Readonly<Record<string, SimResponder>> = Object.freeze({
  ...flowSimResponders,
  ...runSimResponders,
  ...teamSimResponders,
  ...worfbenchSimResponders,
  ...dialogSimResponders,
});

/**
 * Registers the built-in responders (again after they were unregistered; a purpose a caller has taken with a
 * responder of their own keeps it). Importing the library does this once.
 */
export function registerBuiltinSimResponders(): void {
  for (const [purpose, responder] of Object.entries(BUILTIN_SIM_RESPONDERS)) {
    if (simResponderFor(purpose) === undefined) registerSimResponder(purpose, responder);
  }
}

registerBuiltinSimResponders();
