/** A small procedure and counting tools for dialog tests (the PDL is built by hand: parsing is tested apart). */
import { createHash } from 'node:crypto';
import type { Pdl } from '../../src/dialog/pdl.js';
import { WeftError } from '../../src/errors.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';

export function refundPdl(overrides: Partial<Pdl> = {}): Pdl {
  return {
    name: 'refund',
    desc: 'Refund a returned order.',
    slots: [
      { name: 'email', desc: "the customer's email" },
      { name: 'order_id', desc: 'the order' },
    ],
    apis: [
      { name: 'find_customer', request: ['email'], response: ['customer_id'], precondition: [] },
      { name: 'get_order', request: ['order_id'], response: ['status'], precondition: ['find_customer'] },
      {
        name: 'refund_order',
        request: ['order_id'],
        response: ['refund_id'],
        precondition: ['find_customer', 'get_order'],
      },
    ],
    answers: [
      { name: 'request_information', desc: 'ask for what is missing', precondition: [], builtIn: true },
      { name: 'answer_out_of_workflow_questions', desc: 'answer other questions', precondition: [], builtIn: true },
    ],
    procedure: 'customer_id = API.find_customer(email)\nstatus = API.get_order(order_id)\nAPI.refund_order(order_id)',
    references: [],
    controllers: {},
    hasTools: false,
    sha256: createHash('sha256').update('refund').digest('hex'),
    ...overrides,
  };
}

export interface CountingTools {
  readonly tools: Tool[];
  /** Calls that reached each tool, in order. */
  readonly calls: { name: string; args: JsonValue }[];
  /** What each call was told it is made for (`ToolCallContext.scope`), in the same order. */
  readonly scopes: (string | undefined)[];
}

/** `idempotent` names the tools that say calling twice is calling once (none by default). */
export function countingTools(
  failing: readonly string[] = [],
  options: { readonly idempotent?: readonly string[] } = {},
): CountingTools {
  const calls: { name: string; args: JsonValue }[] = [];
  const scopes: (string | undefined)[] = [];
  const make = (name: string, result: JsonValue): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    source: 'test',
    ...(options.idempotent?.includes(name) ? { idempotent: true } : {}),
    async call(args, context) {
      calls.push({ name, args });
      scopes.push(context.scope);
      if (failing.includes(name)) throw new WeftError('TOOL', `${name} failed on purpose`);
      return result;
    },
  });
  return {
    calls,
    scopes,
    tools: [
      make('find_customer', { customer_id: 'C-1' }),
      make('get_order', { status: 'delivered' }),
      make('refund_order', { refund_id: 'RF-1' }),
    ],
  };
}
