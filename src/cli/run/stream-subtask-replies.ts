/**
 * The run's model with its subtask agents' replies streamed to the live view: each `execute` call (keyed by its
 * subtask) gets an `onStream` that hands the pieces to `onStream(taskId, event)`. Other calls (plan, verify,
 * update) are left as they are. Models of roles that name their own model, and attempts run on workers, do not
 * pass through it and are shown when they end.
 */
import { type ChatModel, CALL_PURPOSES, type StreamEvent, wrapModel } from '../../internal.js';

export function streamSubtaskReplies(
  model: ChatModel,
  onStream: (taskId: string, event: StreamEvent) => void,
): ChatModel {
  return wrapModel(model, {
    transformCall(call) {
      const taskId = call.tag?.purpose === CALL_PURPOSES.execute ? call.tag.key : undefined;
      if (taskId === undefined) return call;
      const earlier = call.onStream;
      return {
        ...call,
        onStream: (event) => {
          earlier?.(event);
          onStream(taskId, event);
        },
      };
    },
  });
}
