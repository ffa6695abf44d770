/**
 * The execute stage's prompts (solve.ts), shared with the sim's execute role (sim-solve.ts) so both read the same
 * text. The instance's inputs go in a `<task-input>` block (src/text/json-block.ts: JSON between tags,
 * `<` escaped), which is simply how a real model is shown them and what the sim parses.
 */
import { jsonBlock, readJsonBlock } from '../text/json-block.js';
import type { ChatCall } from '../llm/chat-model.js';
import type { Tool } from '../tools/tool.js';

export const TASK_INPUT_TAG = 'task-input';

/** The first words of the planning request of plan-execute; the sim knows the planning call by them. */
export const PLAN_REQUEST = 'Before calling any tool, make a plan.';

/** What every solve call's system prompt says: the task, the inputs, and how to answer. */
export function solveSystemPrompt(task: string, input: unknown): string {
  return [
    'You solve one concrete instance of a task with the tools you are given.',
    '',
    'The task:',
    task,
    '',
    "The instance's inputs (JSON):",
    jsonBlock(TASK_INPUT_TAG, input),
    '',
    'Rules:',
    '- Use the tools to get every fact you need; do not guess results a tool can give.',
    '- Call tools one step at a time and read each result before the next call.',
    '- When you are done, end with the final answer as JSON: a JSON value on its own, or inside a ```json block.',
    '- If you cannot finish (a tool keeps failing), say so plainly instead of giving an answer.',
  ].join('\n');
}

/** The user message that starts a ReAct solve. */
export const REACT_START = 'Solve the task for these inputs. End with the final answer as JSON.';

/** The planning request of plan-execute; the tools are listed, not offered, so the reply is the plan only. */
export function planRequest(tools: readonly Tool[]): string {
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description.replace(/\s+/g, ' ').trim()}`);
  return [
    PLAN_REQUEST,
    'The tools you will have:',
    ...(lines.length > 0 ? lines : ['(none)']),
    '',
    'Reply with the plan only: a JSON list of short steps (strings), in the order you will do them, e.g.',
    '["Look up the order", "If it has shipped, get the tracking number"].',
  ].join('\n');
}

const STEP_PREFIX = 'Step ';

export function stepMessage(index: number, count: number, step: string): string {
  return `${STEP_PREFIX}${index + 1} of ${count}: ${step}\nDo this step with the tools; when it is done, say briefly what you found.`;
}

export const FINAL_REQUEST =
  'All steps are done. Give the final answer for these inputs now, as JSON (on its own or in a ```json block).';

/** The inputs a solve call shows (the last `<task-input>` block of its system prompt), or undefined. */
export function readTaskInput(call: Pick<ChatCall, 'system'>): unknown {
  return call.system === undefined ? undefined : readJsonBlock(call.system, TASK_INPUT_TAG);
}

/** Whether this is plan-execute's planning call. */
export function isPlanningCall(call: Pick<ChatCall, 'messages'>): boolean {
  const users = call.messages.flatMap((message) => (message.role === 'user' ? [message.content] : []));
  return (
    (users[0]?.startsWith(PLAN_REQUEST) ?? false) &&
    !users.some((content) => content.startsWith(STEP_PREFIX) || content === FINAL_REQUEST)
  );
}
