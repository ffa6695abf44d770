/**
 * The sim's execute stage (distill-sim.ts): follows the reference workflow on the call's input.
 * NOT BUILT YET (issue 14): the execute stage's helper fills this in.
 */
import type { ChatCall } from '../llm/chat-model.js';
import type { SimOptions } from '../llm/sim-options.js';
import type { DistillSimReply } from './distill-sim-reply.js';
import type { ExecutableWorkflow } from './workflow.js';

export function simSolveReply(_call: ChatCall, _reference: ExecutableWorkflow, _options: SimOptions): DistillSimReply {
  return { text: 'sim solve: not built yet' };
}
