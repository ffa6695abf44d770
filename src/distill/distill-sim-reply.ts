import type { ChatResult } from '../llm/chat-model.js';

/** What a sim role of distillation answers (distill-sim.ts): text, tool calls, or both. */
export interface DistillSimReply {
  readonly text: string;
  readonly toolCalls?: ChatResult['toolCalls'];
}
