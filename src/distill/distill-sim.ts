/**
 * The `sim:` model's two roles in distillation, so the whole pipeline runs offline: in the execute stage
 * (purpose `solve`) it follows a reference workflow, making that workflow's tool calls one reply at a time and
 * answering its output (sim-solve.ts); in the summarize stage (purpose `distill`) it emits the reference graph
 * through the graph tools, each call carrying a mistake with probability `mistake` (sim-summarize.ts). Every other
 * purpose goes to the model it wraps.
 *
 * It lives here, not in src/llm, because following a workflow needs the interpreter, which sits above the models.
 * The reference comes from the caller (the suite harness knows each task's reference workflow) or from the spec's
 * `reference=FILE` option (`weft solve --model sim:reference=w.json`). Without one, a solve or distill call gets a
 * plain answer that says so. Replies are labelled simulated by the model's kind, as every sim reply is.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';
import { parseSimOptions, type SimOptions } from '../llm/sim-options.js';
import { estimateUsage } from '../llm/token-estimate.js';
import type { ExecutableWorkflow } from './workflow.js';
export type { DistillSimReply } from './distill-sim-reply.js';
import { simSolveReply } from './sim-solve.js';
import { distillPhaseOf } from './distill-prompt.js';
import { simSingleStageReply } from './sim-single-stage.js';
import { simSummarizeReply } from './sim-summarize.js';

/**
 * `model` itself unless it is a sim model; otherwise a model that answers `solve` and `distill` calls from
 * `reference` (or the spec's `reference=` file, read by the caller and passed here) and passes the rest on.
 */
export function withDistillSim(model: ChatModel, reference: ExecutableWorkflow | undefined): ChatModel {
  if (model.kind !== 'sim') return model;
  const options: SimOptions = parseSimOptions(model.id);
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      const purpose = call.tag?.purpose;
      if (purpose !== 'solve' && purpose !== 'distill') return next(call, signal);
      signal?.throwIfAborted();
      const reply =
        reference === undefined
          ? { text: `sim ${purpose}: no reference workflow to follow (give one with sim:reference=FILE)` }
          : purpose === 'solve'
            ? await simSolveReply(call, reference, options)
            : distillPhaseOf(call.system) === 'single'
              ? await simSingleStageReply(call, reference, options)
              : simSummarizeReply(call, reference, options);
      return {
        text: reply.text,
        ...(reply.toolCalls && reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls } : {}),
        usage: estimateUsage(call, reply.text + JSON.stringify(reply.toolCalls ?? [])),
        model: model.id,
      };
    },
  });
}
