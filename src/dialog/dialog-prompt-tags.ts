/**
 * What the prompts of conversational procedures (src/dialog) put inside tagged blocks, so that the `sim:`
 * model can play the bot, the simulated user and the judge offline (sim-dialog.ts) from the same prompt a real
 * model reads. The dialog layer writes these blocks; the sim parses them. Each block is `<name>` + JSON + `</name>`
 * (src/text/json-block.ts, under the names `dialogBlock` and `readDialogBlock` here).
 *
 * - purpose `converse` (the bot): the system prompt has `<apis>` (DialogApiSpec[]); the APIs themselves are the
 *   call's `tools`; users' messages carry the details the bot needs.
 * - purpose `simulate-user`: the system prompt has `<profile>` (DialogProfileSpec) and, on a turn chosen for an
 *   out-of-workflow move, `<oow>` (DialogOowSpec). The bot's messages are the `user` messages of this call, and
 *   the user model answers `[END]` when it is done.
 * - purpose `judge`, session level: the prompt has `<goals>` (DialogGoalSpec[]) and `<api-calls>`
 *   (DialogApiCallSpec[]) besides the transcript; the reply is JSON `{ "success": bool, "achieved": [goal indices],
 *   "reason": "..." }`.
 * - purpose `judge`, turn level: `<reference>` and `<prediction>` (DialogMoveSpec each); the reply is JSON
 *   `{ "consistent": bool, "reason": "..." }`.
 */

export { jsonBlock as dialogBlock, readJsonBlock as readDialogBlock } from '../text/json-block.js';

export const DIALOG_TAGS = {
  apis: 'apis',
  profile: 'profile',
  oow: 'oow',
  goals: 'goals',
  apiCalls: 'api-calls',
  reference: 'reference',
  prediction: 'prediction',
} as const;

/** What a simulated user says (alone or at the end of its message) when it is done; `weft simulate` ends there. */
export const DIALOG_END_MARKER = '[END]';

export interface DialogApiSpec {
  readonly name: string;
  readonly request: readonly string[];
  readonly response: readonly string[];
  readonly precondition: readonly string[];
  /** Conditions on the preconditions' latest successful results (src/text/result-condition.ts); absent: none. */
  readonly conditions?: readonly DialogConditionSpec[];
}

/** `api.field op value`: the field is a path into the result. */
export interface DialogConditionSpec {
  readonly api: string;
  readonly field: readonly string[];
  readonly op: '==' | '!=' | '<' | '<=' | '>' | '>=';
  readonly value: string | number | boolean | null;
}

export interface DialogProfileSpec {
  readonly id: string;
  readonly persona: string;
  /** Facts the user knows and gives when asked, by slot name (e.g. `email`, `order_id`). */
  readonly details: Readonly<Record<string, unknown>>;
  /** What the user wants, in their words. */
  readonly needs: readonly string[];
  readonly style: string;
  readonly pattern: string;
  /**
   * The user makes up a plausible value for a detail the profile does not give (the FlowAgent authors' profiles
   * describe a person, not every value a procedure asks for); otherwise the user says it does not know.
   */
  readonly inventsDetails?: boolean;
}

export interface DialogOowSpec {
  /** A category id (`intent_switching`, `procedure_jumping`, `irrelevant_answering`, or a taxonomy file's). */
  readonly category: string;
  /** Absent when the user model picks the move among the category's kinds (the FlowAgent authors' assignment). */
  readonly subtype?: string;
  /** The instruction a real user model reads. */
  readonly instruction: string;
}

export interface DialogGoalSpec {
  readonly goal: string;
  /** APIs whose success shows the goal was reached, when the profile says (the sim judge needs them). */
  readonly apis?: readonly string[];
}

export interface DialogApiCallSpec {
  readonly name: string;
  readonly ok: boolean;
}

export type DialogMoveSpec =
  | { readonly kind: 'tool'; readonly name: string; readonly args: unknown }
  | { readonly kind: 'reply'; readonly text: string };
