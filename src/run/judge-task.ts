/**
 * A judge model's check of a finished run (`weft run --judge-model SPEC`, docs/algorithms.md#fault-injection): a model
 * other than the run's is shown the task, the run's result (the outputs of its last subtasks) and the names of its
 * artifacts, and answers whether the task was accomplished. Independent of the run's verifier, like `--check`.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { parseJsonLoose } from '../llm/extract-json.js';
import { clip } from '../plan/prompts.js';

export const JUDGE_TASK_SYSTEM = `You judge whether a finished piece of work accomplishes its task. You are shown the
task, the final result and the files it produced. Judge the result itself: missing parts, placeholders such as
"none", and parts that do not fit together mean the task was not accomplished.
Answer with JSON only: {"success": true or false, "reason": "one sentence"}.`;

export interface JudgeTaskInput {
  readonly task: string;
  /** The run's result text; empty when no final subtask produced one. */
  readonly result: string;
  readonly artifacts: readonly string[];
}

export interface JudgeVerdict {
  readonly passed: boolean;
  readonly reason: string;
}

export function judgeTaskPrompt(input: JudgeTaskInput): string {
  const files = input.artifacts.length === 0 ? 'none' : input.artifacts.slice(0, 200).join('\n');
  return [
    `<task>\n${input.task}\n</task>`,
    `<result>\n${input.result === '' ? '(no result)' : clip(input.result)}\n</result>`,
    `<artifacts>\n${files}\n</artifacts>`,
    'Was the task accomplished? Answer with the JSON object only.',
  ].join('\n\n');
}

/** Reads the judge's reply; an unreadable one is a failed check that says so (it is never taken as success). */
export function readJudgeVerdict(text: string): JudgeVerdict {
  const parsed = parseJsonLoose(text);
  const value = parsed.ok ? (parsed.value as { success?: unknown; reason?: unknown }) : undefined;
  if (!value || typeof value !== 'object' || typeof value.success !== 'boolean') {
    return { passed: false, reason: `the judge's reply has no "success": true or false: ${clipReply(text)}` };
  }
  return { passed: value.success, reason: typeof value.reason === 'string' ? value.reason : '' };
}

export async function judgeTask(model: ChatModel, input: JudgeTaskInput, signal?: AbortSignal): Promise<JudgeVerdict> {
  const reply = await model.generate(
    {
      system: JUDGE_TASK_SYSTEM,
      messages: [{ role: 'user', content: judgeTaskPrompt(input) }],
      json: { name: 'task_judgement' },
      tag: { purpose: 'other', key: 'task-check' },
    },
    signal,
  );
  return readJudgeVerdict(reply.text);
}

function clipReply(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat || '(empty)';
}
