/**
 * An API of a procedure as a tool declaration made from the PDL alone — its request parameters as the input schema
 * (described by the slots of the same name), its response fields as the output schema — for when no tool and no
 * tools spec declares it: turn-level evaluation offers it to the bot, and `--simulate-apis` has a model answer it.
 */
import { type DeclaredApi, declarationOf } from '../tools/simulated-api.js';
import type { Tool } from '../tools/tool.js';
import type { Pdl, PdlApi } from './pdl.js';

export function pdlApiDeclaration(pdl: Pick<Pdl, 'slots' | 'file'>, api: PdlApi): DeclaredApi {
  const slotDesc = new Map(pdl.slots.map((slot) => [slot.name, slot.desc]));
  return {
    name: api.name,
    description: api.desc ?? api.label ?? api.name,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(
        api.request.map((parameter) => [
          parameter,
          slotDesc.has(parameter) ? { description: slotDesc.get(parameter) } : {},
        ]),
      ),
    },
    ...(api.response.length > 0
      ? {
          outputSchema: {
            type: 'object',
            properties: Object.fromEntries(api.response.map((field) => [field, {}])),
          },
        }
      : {}),
    source: `PDL ${pdl.file ?? 'procedure'} (API ${api.name})`,
  };
}

/** What a simulated API is answered from: its tool's declaration when it has one, else the PDL's. */
export function simulationDeclaration(
  pdl: Pick<Pdl, 'slots' | 'file'>,
  api: PdlApi,
  tool: Tool | undefined,
): DeclaredApi {
  return tool ? declarationOf(tool) : pdlApiDeclaration(pdl, api);
}
