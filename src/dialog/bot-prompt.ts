/**
 * The bot's system prompt (our own wording; the paper's prompts are not reused): the procedure in full — meta,
 * slots, APIs with their preconditions, answers, the procedure text — the `<apis>` block the sim model reads
 * (dialog-prompt-tags.ts), the rules of one action at a time, and the controllers' guidance for this decision.
 */
import { DIALOG_TAGS, type DialogApiSpec, dialogBlock } from './dialog-prompt-tags.js';
import { preconditionLabels } from './api-graph.js';
import type { Pdl } from './pdl.js';

export function botSystemPrompt(pdl: Pdl, guidance: readonly string[]): string {
  const parts: string[] = [];
  parts.push(
    `You are a service agent that helps a user through the procedure "${pdl.name}": ${pdl.desc}`,
    ...(pdl.detailedDesc ? [pdl.detailedDesc] : []),
  );
  if (pdl.slots.length > 0) {
    parts.push(
      `Information you may need from the user or from APIs:\n${pdl.slots
        .map((slot) => `- ${slot.name}${slot.type ? ` (${slot.type})` : ''}: ${slot.desc}`)
        .join('\n')}`,
    );
  }
  parts.push(
    `APIs (call them as tools; an API may be called only after every API in its preconditions has succeeded, and a condition such as x.field == "value" holds for x's latest result):\n${pdl.apis
      .map(
        (api) =>
          `- ${api.name}(${api.request.join(', ')}) -> ${api.response.join(', ') || 'result'}${
            api.precondition.length > 0 ? ` [preconditions: ${preconditionLabels(api).join(', ')}]` : ''
          }${api.desc ? `: ${api.desc}` : ''}`,
      )
      .join('\n')}`,
  );
  parts.push(
    `Kinds of reply you give the user:\n${pdl.answers
      .map(
        (answer) =>
          `- ${answer.name}: ${answer.desc}${
            answer.precondition.length > 0 ? ` (only after ${preconditionLabels(answer).join(', ')} succeeded)` : ''
          }`,
      )
      .join('\n')}`,
  );
  parts.push(`The procedure to follow:\n${pdl.procedure.trim()}`);
  const apis: DialogApiSpec[] = pdl.apis.map((api) => ({
    name: api.name,
    request: api.request,
    response: api.response,
    precondition: api.precondition,
    ...(api.conditions && api.conditions.length > 0 ? { conditions: api.conditions } : {}),
  }));
  parts.push(dialogBlock(DIALOG_TAGS.apis, apis));
  parts.push(
    [
      'How to act:',
      '- Each step, do exactly one thing: call one API, or reply to the user.',
      '- Follow the procedure, but when the user asks something outside it, answer briefly and then lead back to it.',
      '- Never invent an API result: say a thing is done only after the API that does it has succeeded.',
      '- Ask the user for information you lack instead of guessing it.',
      '- When you reply, you may start with "Thought: <your reasoning>" on its own line, then "Response: <what the user reads>".',
    ].join('\n'),
  );
  if (guidance.length > 0)
    parts.push(`Notes for this step (from the procedure's controllers):\n${guidance.join('\n')}`);
  return parts.join('\n\n');
}
