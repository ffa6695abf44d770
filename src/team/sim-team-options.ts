/**
 * The `sim:` options of the team's responders (sim-team-responders.ts, behaviour in sim-team.ts), registered by
 * src/sim-responders.ts:
 *
 * | key      | value                                                   | default |
 * |----------|---------------------------------------------------------|---------|
 * | accuracy | P(an agent's own answer is right), and of rating peers  | 1       |
 * |          | and ranking agents knowingly                            |         |
 * | follow   | P(a wrong agent takes its peers' majority)              | 0.5     |
 * | answers  | optional: a team dataset (JSONL) whose gold answers the | —       |
 * |          | sim knows (sim-answer-key.ts)                           |         |
 */
import { resolve } from 'node:path';
import type { SimCallContext } from '../llm/sim-responders.js';
import { simPathOption, simProbabilityOption, type SimOptionKey } from '../llm/sim-options.js';
import { loadSimAnswerKey, type SimAnswerKey } from './sim-answer-key.js';

declare module '../llm/sim-options.js' {
  interface SimOptions {
    /** P(an agent's own answer is right), and of rating peers and ranking agents knowingly. */
    readonly accuracy: number;
    /** P(a wrong agent takes its peers' majority answer). */
    readonly follow: number;
    /** A team dataset file whose gold answers the simulator knows (sim-answer-key.ts); relative to the working folder. */
    readonly answers?: string;
  }
}

/** The team's sim option keys (in the places of a model id they always had). */
export const teamSimOptions: readonly SimOptionKey[] = Object.freeze([
  simProbabilityOption('accuracy', { position: 50, default: 1, alwaysShown: true }),
  simProbabilityOption('follow', { position: 60, default: 0.5 }),
  simPathOption('answers', 'a team dataset (JSONL)', {
    position: 110,
    load: (path, cwd) => loadSimAnswerKey(resolve(cwd, path)),
  }) as SimOptionKey,
]);

/** The answer key the model was made with (`answers=`), if any. */
export function simAnswerKeyOf(context: Pick<SimCallContext, 'loaded'>): SimAnswerKey | undefined {
  return context.loaded.get('answers') as SimAnswerKey | undefined;
}
