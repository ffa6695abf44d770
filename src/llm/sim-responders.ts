/**
 * The registry of what the `sim:` model answers, per call purpose. The model itself (sim-model.ts) only does the
 * seeded mechanics — latency, provider errors, generic tool calls, the virtual clock — and hands the reply to the
 * responder registered for the call's purpose. Each engine registers its responders next to its prompts (they
 * know the prompt's layout; this layer does not), and src/sim-responders.ts registers all of them when the
 * library is imported. A library user adds a responder for a purpose of their own with `registerSimResponder`.
 */
import { WeftError } from '../errors.js';
import type { CallTag, ChatCall, ToolCallRequest } from './chat-model.js';
import type { RandomSource } from './seeded-random.js';
import type { SimOptions } from './sim-options.js';

/** One call as a responder sees it. */
export interface SimCallContext {
  readonly call: ChatCall;
  /** The call's tag (`{ purpose: 'other' }` for an untagged call). */
  readonly tag: CallTag;
  readonly options: SimOptions;
  /**
   * A random source for one named decision, seeded by (seed, purpose, key, attempt, n, name), where n counts
   * earlier calls with the same purpose, key and attempt: the same call always draws the same numbers, whatever
   * the order of calls across keys.
   */
  stream(name: string): RandomSource;
  /** What the options that name a file read (`SimOptionKey.load`), by option name: e.g. a team's answer key. */
  readonly loaded: ReadonlyMap<string, unknown>;
}

/** A reply: its text, or text with tool calls. */
export type SimReply = string | { readonly text: string; readonly toolCalls?: readonly ToolCallRequest[] };

export interface SimResponder {
  /**
   * Whether it answers the call's `tools` itself. When false (the default) and the call offers tools, the sim
   * first makes `toolcalls` seeded tool calls of its own and calls the responder only for the final answer.
   */
  readonly answersTools?: boolean;
  respond(context: SimCallContext): SimReply | Promise<SimReply>;
}

const responders = new Map<string, SimResponder>();

/**
 * Makes `responder` answer the sim model's calls with this purpose. A purpose has one responder: registering a
 * second one for it fails (registering the same one again does nothing). Returns a function that unregisters it.
 */
export function registerSimResponder(purpose: string, responder: SimResponder): () => void {
  if (typeof purpose !== 'string' || purpose.trim() === '') {
    throw new WeftError('BAD_INPUT', 'a sim responder needs a purpose (a non-empty string)', {
      location: { field: 'purpose' },
    });
  }
  if (typeof responder?.respond !== 'function') {
    throw new WeftError('BAD_INPUT', `the sim responder for purpose "${purpose}" has no respond function`, {
      location: { field: 'respond' },
    });
  }
  const existing = responders.get(purpose);
  if (existing !== undefined && existing !== responder) {
    throw new WeftError(
      'BAD_INPUT',
      `the sim model already has a responder for purpose "${purpose}"; unregister it first (registerSimResponder returns the function that does)`,
      { location: { field: 'purpose' } },
    );
  }
  responders.set(purpose, responder);
  return () => {
    if (responders.get(purpose) === responder) responders.delete(purpose);
  };
}

/** The responder for a purpose, or undefined. */
export function simResponderFor(purpose: string): SimResponder | undefined {
  return responders.get(purpose);
}

/** The purposes that have a responder, sorted. */
export function simResponderPurposes(): string[] {
  return [...responders.keys()].sort();
}

/** The error of a call whose purpose no responder answers: it names the purpose and how to add one. */
export function noSimResponderError(purpose: string): WeftError {
  const known = simResponderPurposes();
  return new WeftError(
    'MODEL_CONFIG',
    `the sim model has no responder for purpose "${purpose}" (it answers: ${known.length > 0 ? known.join(', ') : 'none'}); register one with registerSimResponder("${purpose}", { respond }) from 'weft' (importing 'weft' registers the responders of Weft's own engines)`,
    { location: { field: 'tag.purpose' } },
  );
}
