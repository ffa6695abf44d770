/**
 * The sim's summarize stage (distill-sim.ts): emits the reference graph through the graph tools.
 * NOT BUILT YET (issue 14): the summarize stage's helper fills this in.
 */
import type { ChatCall } from '../llm/chat-model.js';
import type { SimOptions } from '../llm/sim-options.js';
import type { DistillSimReply } from './distill-sim-reply.js';
import type { ExecutableWorkflow } from './workflow.js';

export function simSummarizeReply(
  _call: ChatCall,
  _reference: ExecutableWorkflow,
  _options: SimOptions,
): DistillSimReply {
  return { text: 'sim distill: not built yet' };
}
