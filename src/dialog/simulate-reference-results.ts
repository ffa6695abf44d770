/**
 * Reference sessions whose API calls carry no recorded answer, answered by a simulated API (`weft dialog eval
 * --simulate-apis`): each such call — a bot tool move with neither `result` nor `error` — is put to the API's
 * simulated tool once, with the procedure and the session up to that call as context, and its answer (or error)
 * recorded in the move, marked `simulated`. Calls with an answer keep it. Nothing else is executed: the bot's own
 * predictions are never run.
 */
import { callTool } from '../tools/call-tool.js';
import { type ApiSimulator, simulatedTool } from '../tools/simulated-api.js';
import type { Tool } from '../tools/tool.js';
import type { Pdl } from './pdl.js';
import { simulationDeclaration } from './pdl-api-declaration.js';
import { procedureText } from './procedure-text.js';
import type { ReferenceMessage, ReferenceSession } from './reference-sessions.js';

export interface FilledReferences {
  readonly references: ReferenceSession[];
  /** Calls answered by the simulator. */
  readonly simulated: number;
}

export async function simulateReferenceResults(
  pdl: Pdl,
  references: readonly ReferenceSession[],
  tools: readonly Tool[],
  simulator: Omit<ApiSimulator, 'context'>,
  signal?: AbortSignal,
): Promise<FilledReferences> {
  let simulated = 0;
  const declarations = new Map(tools.map((tool) => [tool.name, tool]));
  const filled: ReferenceSession[] = [];
  for (const reference of references) {
    const messages: ReferenceMessage[] = [];
    for (const message of reference.messages) {
      signal?.throwIfAborted();
      if (
        message.role !== 'bot' ||
        message.kind !== 'tool' ||
        message.result !== undefined ||
        message.error !== undefined
      ) {
        messages.push(message);
        continue;
      }
      const api = pdl.apis.find((candidate) => candidate.name === message.tool);
      if (!api) {
        messages.push({ ...message, ok: false, error: `no API named ${message.tool} (simulated)`, simulated: true });
        simulated += 1;
        continue;
      }
      const prefix = [...messages];
      const tool = simulatedTool(simulationDeclaration(pdl, api, declarations.get(api.name)), {
        ...simulator,
        context: () => ({ procedure: procedureText(pdl), conversation: transcript(prefix) }),
      });
      const outcome = await callTool(tool, message.args, signal ? { signal } : {});
      simulated += 1;
      messages.push(
        outcome.ok
          ? { ...message, result: outcome.result, ok: true, simulated: true }
          : { ...message, ok: false, error: outcome.error.message, simulated: true },
      );
    }
    filled.push({ ...reference, messages });
  }
  return { references: filled, simulated };
}

function transcript(messages: readonly ReferenceMessage[]): string {
  return messages
    .map((message) => {
      if (message.role === 'user') return `Customer: ${message.content}`;
      if (message.kind === 'reply') return `Assistant: ${message.content}`;
      const answer = message.ok ? JSON.stringify(message.result ?? null) : `error: ${message.error ?? 'failed'}`;
      return `[API call] ${message.tool} ${JSON.stringify(message.args)} → ${answer}`;
    })
    .join('\n');
}
