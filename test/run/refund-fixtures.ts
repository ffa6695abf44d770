/**
 * A refund that fails: a plan with one tool-using subtask, a refund tool whose service answers 409 (quoting the card
 * number, which the error is scrubbed of), and a scripted model whose agent claims the refund went through and whose
 * verifier rejects only a prompt that shows the failed call. Shared by the in-process and the worker tests of what
 * the verifier is shown.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Workflow } from '../../src/graph/workflow.js';
import type { ChatCall, ChatModel } from '../../src/llm/chat-model.js';
import { createModel } from '../../src/llm/resolve-model.js';
import type { Tool } from '../../src/tools/tool.js';

export const CARD = '4111111111111111';
export const REJECTION = 'issue_refund failed with HTTP 409, yet the output says the refund was issued';

/** The agent asks for one refund and then claims it went through; the verifier rejects only what shows the 409. */
export const REPLIES = {
  replies: [
    {
      when: `/You are Weft's verifier[\\s\\S]*<call n="1" tool="issue_refund" status="failed" code="TOOL">[\\s\\S]*HTTP 409/`,
      text: JSON.stringify({ verdict: 'replan', reason: REJECTION }),
      repeat: true,
    },
    { when: "You are Weft's verifier", text: '{"verdict":"accept","reason":"the objective is met"}', repeat: true },
    {
      when: '/objective>\\s*Refund/',
      toolCalls: [{ name: 'issue_refund', args: { return_id: 'R-0001', card: CARD } }],
    },
    { when: '/objective>\\s*Refund/', text: 'Refund RF-0001 of $69.00 was issued to the card.' },
  ],
};

export const PLAN: Workflow = {
  task: 'Refund the webcam of order O-5005.',
  roles: [{ name: 'refunds', prompt: 'You issue refunds.', kind: 'llm', tools: ['issue_refund'] }],
  subtasks: [
    {
      id: 'refund',
      objective: 'Refund return R-0001 to the card.',
      agent: 'refunds',
      dependsOn: [],
      status: 'not started',
      attempts: 0,
    },
  ],
};

/** A refund tool whose service answers 409, quoting the card number it was given (the error is scrubbed of it). */
export function refundTool(): Tool & { made: number } {
  const tool = {
    made: 0,
    name: 'issue_refund',
    description: 'Refunds an approved return to a card.',
    inputSchema: {
      type: 'object',
      properties: { return_id: { type: 'string' }, card: { type: 'string' } },
      required: ['return_id', 'card'],
    },
    secretArgs: ['card'],
    source: 'test refunds',
    call: async (args: unknown) => {
      tool.made += 1;
      const { card } = args as { card: string };
      throw new Error(`HTTP 409: {"error":"return R-0001 is already refunded to card ${card}"}`);
    },
  };
  return tool as Tool & { made: number };
}

/** The scripted model of REPLIES (a file written in `dir`), recording every call it is asked into `calls`. */
export async function recordedScriptedModel(
  dir: string,
  calls: ChatCall[] = [],
): Promise<ChatModel & { calls: ChatCall[] }> {
  const file = join(dir, 'replies.json');
  writeFileSync(file, JSON.stringify(REPLIES));
  const scripted = await createModel(`scripted:${file}`);
  return {
    id: scripted.id,
    kind: scripted.kind,
    ...(scripted.toolCalling ? { toolCalling: scripted.toolCalling } : {}),
    calls,
    generate(call, signal) {
      calls.push(call);
      return scripted.generate(call, signal);
    },
  };
}

/** The verifier prompts (user messages) among recorded calls, in order. */
export const verifierPrompts = (calls: readonly ChatCall[]) =>
  calls.filter((call) => call.tag?.purpose === 'verify').map((call) => call.messages.map((m) => m.content).join('\n'));
