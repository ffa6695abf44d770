/**
 * The `sim:` options of the conversation simulator's responders (sim-dialog.ts), registered by
 * src/sim-responders.ts:
 *
 * | key     | value                                                          | default |
 * |---------|----------------------------------------------------------------|---------|
 * | violate | bot: P(a slip that breaks the procedure: an unavailable API,   | 0       |
 * |         | or a repeat; a controller's note against it is heeded half    |         |
 * |         | the time) (sim-bot.ts)                                         |         |
 * | noise   | judge: P(a goal's or turn's verdict flips) (sim-judge.ts)      | 0       |
 */
import { simProbabilityOption, type SimOptionKey } from '../llm/sim-options.js';

declare module '../llm/sim-options.js' {
  interface SimOptions {
    /** Dialog bot (purpose `converse`): P(a move that breaks the procedure — an unavailable API, or a repeat). */
    readonly violate: number;
    /** Dialog judge (purpose `judge`): P(each goal's, or a turn's, verdict is flipped). */
    readonly noise: number;
  }
}

/** The conversation simulator's sim option keys (in the places of a model id they always had). */
export const dialogSimOptions: readonly SimOptionKey[] = Object.freeze([
  simProbabilityOption('violate', { position: 150 }),
  simProbabilityOption('noise', { position: 160 }),
]);
