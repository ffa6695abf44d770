/**
 * Simulated APIs: a tool whose answers a model produces from the API's declaration — its description, input and
 * output schemas — and, where the caller gives them, the procedure and the conversation so far. The FlowAgent
 * authors evaluate procedures this way (`api_mode: llm`), so that a procedure can be tried before its APIs exist.
 *
 * The model plays the server: it checks the request against the declaration, makes up plausible data, and answers
 * one JSON object `{"status": <code>, "data": …}` (our wording; the authors' prompt asks for the same two fields).
 * A 2xx status is the tool's result (`data`); any other is a tool error the caller sees as it would an HTTP API's
 * (`name: HTTP 422: …`). The reply is parsed robustly (JSON in a fence or in text, repaired, one re-prompt with the
 * error), as every structured reply of Weft is; a model that never answers usable JSON is a tool error.
 *
 * A simulated tool is never taken for the API: it is marked `simulated`, its calls are recorded and shown as
 * simulated, and `idempotent` is false (a model cannot know whether the real API would be). The `sim:` model answers
 * it deterministically from the output schema (simulated-api-sim.ts).
 */
import { z } from 'zod';
import { WeftError } from '../errors.js';
import type { ChatModel, Usage } from '../llm/chat-model.js';
import { jsonBlock } from '../text/json-block.js';
import { hashString } from '../llm/seeded-random.js';
import { generateStructured } from '../llm/structured-output.js';
import { canonicalJson } from '../text/canonical-json.js';
import { SIMULATED_API_TAGS, withApiSim } from './simulated-api-sim.js';
import type { JsonValue, Tool, ToolSchema } from './tool.js';

/** What a model is shown of an API. */
export interface ApiDeclaration {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolSchema;
  /** What it returns; without one the model decides the fields from the description. */
  readonly outputSchema?: ToolSchema;
}

/** A declaration with where it comes from and the limits its entry sets. */
export interface DeclaredApi extends ApiDeclaration {
  readonly source: string;
  readonly timeoutMs?: number;
  readonly maxResultBytes?: number;
}

/** What a simulated call cost: the caller records it beside the call (calls, tokens, money). */
export interface SimulationUsage {
  /** The model as it answered. */
  readonly model: string;
  readonly calls: number;
  readonly usage: Usage;
  readonly ms: number;
}

export interface ApiSimulator {
  /** The model that answers. */
  readonly model: ChatModel;
  /** Read at each call: the procedure the API serves and the conversation so far, when there are such things. */
  readonly context?: () => { readonly procedure?: string; readonly conversation?: string };
  /** Told what each call cost. */
  readonly onUsage?: (usage: SimulationUsage) => void;
}

/** Characters of the procedure and of the conversation shown at most (the end of a long conversation is kept). */
const MAX_CONTEXT_CHARS = 12_000;
/** Re-prompts after a reply that is not the JSON asked for. */
const REPAIRS = 1;

const SYSTEM = [
  'You play the server of a business API that does not exist yet. A client has sent it a request; answer as the',
  'real API would.',
  '- Check the request against the API’s declaration: a missing required argument, one of the wrong kind or a',
  '  value the API would refuse gets an error status (400 or 422) with a short message in "data".',
  '- Otherwise answer status 200 with "data" holding the result: the fields the declaration lists, with values that',
  '  are plausible and consistent with the request and with anything the conversation has already established.',
  '- Make up what you must (ids, dates, names), but never contradict earlier answers of the same API.',
  'Answer with one JSON object and nothing else: {"status": <HTTP status code>, "data": <the result or the error>}',
].join('\n');

const replySchema = z.object({
  status: z.union([
    z.number().int(),
    z
      .string()
      .regex(/^\d{3}$/)
      .transform(Number),
  ]),
  data: z.unknown().optional(),
});

/**
 * A tool that calls `simulator.model` in place of the API `declaration` declares. `source` says where the
 * declaration came from (a tools spec entry, a `kind: simulated` entry, a PDL's API).
 */
export function simulatedTool(declaration: DeclaredApi, simulator: ApiSimulator): Tool {
  const model = withApiSim(simulator.model);
  return {
    name: declaration.name,
    description: declaration.description,
    inputSchema: declaration.inputSchema,
    ...(declaration.outputSchema ? { outputSchema: declaration.outputSchema } : {}),
    ...(declaration.timeoutMs !== undefined ? { timeoutMs: declaration.timeoutMs } : {}),
    ...(declaration.maxResultBytes !== undefined ? { maxResultBytes: declaration.maxResultBytes } : {}),
    idempotent: false,
    simulated: true,
    source: `${declaration.source}, simulated by ${simulator.model.id}`,
    async call(args: JsonValue, { signal }): Promise<JsonValue> {
      const context = simulator.context?.() ?? {};
      const started = performance.now();
      const parts = [
        ...(context.procedure ? ['The procedure the API serves:', cutHead(context.procedure), ''] : []),
        ...(context.conversation ? ['The conversation so far:', cutTail(context.conversation), ''] : []),
        'The API:',
        jsonBlock(SIMULATED_API_TAGS.api, {
          name: declaration.name,
          description: declaration.description,
          input: declaration.inputSchema,
          ...(declaration.outputSchema ? { output: declaration.outputSchema } : {}),
        }),
        '',
        'The request it received:',
        jsonBlock(SIMULATED_API_TAGS.request, { name: declaration.name, args }),
        '',
        'Your answer, as JSON:',
      ];
      let answer: Awaited<ReturnType<typeof generateStructured<z.infer<typeof replySchema>>>>;
      try {
        answer = await generateStructured(
          model,
          {
            system: SYSTEM,
            messages: [{ role: 'user', content: parts.join('\n') }],
            temperature: 0,
            // The same request keys the same draws of a seeded model: asked again, it answers the same.
            tag: {
              purpose: 'simulate-api',
              key: `${declaration.name}#${hashString(canonicalJson(args)).toString(36)}`,
            },
          },
          replySchema,
          { maxRepairs: REPAIRS, select: 'last', signal },
        );
      } catch (error) {
        if (error instanceof WeftError && (error.code === 'ABORTED' || error.code === 'TIMEOUT')) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new WeftError('TOOL', `the model simulating ${declaration.name} gave no usable answer: ${message}`);
      }
      simulator.onUsage?.({
        model: answer.result.model,
        calls: answer.attempts,
        usage: answer.usage,
        ms: performance.now() - started,
      });
      const data = (answer.value.data ?? null) as JsonValue;
      const status = answer.value.status;
      if (status >= 200 && status < 300) return data;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      throw new WeftError('TOOL', `HTTP ${status}: ${text.slice(0, 300)} (simulated)`);
    },
  };
}

/**
 * The tools with every `kind: simulated` one answered through `simulator` — and, with `declared`, every tool that is
 * only declared (a tools spec's APIs: `--simulate-apis`); the others as they are.
 */
export function bindSimulatedTools(
  tools: readonly Tool[],
  simulator: ApiSimulator,
  options: { readonly declared?: boolean } = {},
): Tool[] {
  return tools.map((tool) =>
    tool.simulated || (options.declared && tool.declaredOnly) ? simulatedTool(declarationOf(tool), simulator) : tool,
  );
}

/** What a declared or simulated tool says of itself, for simulatedTool: the entry's limits kept. */
export function declarationOf(tool: Tool): DeclaredApi {
  const source = tool.source.replace(/, simulated by .*$/, '').replace(/ \(declared, no endpoint\)$/, '');
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}),
    ...(tool.maxResultBytes !== undefined ? { maxResultBytes: tool.maxResultBytes } : {}),
    source,
  };
}

function cutHead(text: string): string {
  return text.length > MAX_CONTEXT_CHARS ? `${text.slice(0, MAX_CONTEXT_CHARS)}\n… (cut)` : text;
}

function cutTail(text: string): string {
  return text.length > MAX_CONTEXT_CHARS ? `… (the start cut)\n${text.slice(text.length - MAX_CONTEXT_CHARS)}` : text;
}
