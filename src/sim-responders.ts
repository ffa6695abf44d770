/**
 * The `sim:` model's responders and option keys of Weft's own engines, registered when the library is imported
 * (src/index.ts re-exports this module, so `import 'weft'` runs it): the model layer names no engine, each engine
 * keeps its responders and options next to its prompts, and this file — like role-kinds.ts — puts them together.
 * A new engine's responders and options are its own files plus one entry each here.
 */
import { dialogSimOptions } from './dialog/sim-dialog-options.js';
import { dialogSimResponders } from './dialog/sim-dialog.js';
import { distillSimOptions } from './distill/sim-distill-options.js';
import { worfbenchSimResponders } from './eval/sim-worfbench.js';
import { registerSimResponder, simResponderFor, type SimResponder } from './llm/sim-responders.js';
import { registerSimOptions } from './llm/sim-options.js';
import { flowSimOptions } from './plan/sim-flow-options.js';
import { flowSimResponders } from './plan/sim-flow-responders.js';
import { runSimResponders } from './run/sim-task-check.js';
import { teamSimOptions } from './team/sim-team-options.js';
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

/** Every built-in engine's `sim:` option keys (the generic ones are the model's own, src/llm/sim-options.ts). */
export const BUILTIN_SIM_OPTIONS = Object.freeze([
  ...flowSimOptions,
  ...teamSimOptions,
  ...dialogSimOptions,
  ...distillSimOptions,
]);

registerSimOptions(BUILTIN_SIM_OPTIONS);
registerBuiltinSimResponders();
