/**
 * Controllers (the FlowAgent paper's Algorithm 1): small objects that steer the bot. Before each decision, `pre` may
 * return guidance that is added to the prompt (soft control); after it, `post` may reject the proposed action
 * with a reason the bot sees on its retry (hard control: a rejected tool call never reaches the API).
 * Built-in: dependency (dependency-controller.ts), repetition (repetition-controller.ts), session length
 * (session-length-controller.ts). A user's module may export more (load-controllers.ts).
 */
import type { JsonValue } from '../tools/tool.js';
import type { DialogState } from './dialog-state.js';
import type { Pdl } from './pdl.js';

/** What the bot proposed: a call of an API (a tool) or a reply to the user. */
export type ProposedAction =
  | { readonly kind: 'tool'; readonly callId: string; readonly name: string; readonly args: JsonValue }
  | { readonly kind: 'reply'; readonly text: string };

export interface ControllerContext {
  readonly pdl: Pdl;
  readonly state: DialogState;
  /**
   * The APIs whose tools are idempotent (calling twice does no more than once). An API not in it — no tool, a tool
   * that does not say so, or no set given — counts as not idempotent.
   */
  readonly idempotentApis?: ReadonlySet<string>;
}

export type Verdict = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

export interface Controller {
  /** Unique among a conversation's controllers; recorded with every verdict. */
  readonly name: string;
  /** Soft guidance for the next decision; undefined or '' when it has none. */
  pre?(context: ControllerContext): string | undefined;
  /** Accept or reject a proposed action. */
  post?(action: ProposedAction, context: ControllerContext): Verdict;
}

/** Which halves of the controllers run: all (default), pre only (`--no-post-controllers`), none. */
export type ControllerMode = 'all' | 'pre-only' | 'none';

/** A tool action as `action` in verdicts and events: `tool:<name>` or `reply`. */
export function actionLabel(action: ProposedAction): string {
  return action.kind === 'tool' ? `tool:${action.name}` : 'reply';
}
