/**
 * What the `sim:` model answers to the run's judge (judge-task.ts: purpose `other`, key `task-check`, e.g.
 * `weft run --judge-model sim:`): it judges the result in `<result>…</result>` as the strategies bench's check
 * does — sound unless a `none` or a missing input reached it. Any other `other` call gets `sim reply`.
 */
import { simTagContent } from '../llm/sim-call-text.js';
import type { SimResponder } from '../llm/sim-responders.js';
import { simOutputSound } from '../plan/sim-flow-responders.js';

/** The run's responders by purpose (src/sim-responders.ts registers them). */
export const runSimResponders: Readonly<Record<string, SimResponder>> = Object.freeze({
  other: {
    respond: ({ call, tag }) => {
      if (tag.key !== 'task-check') return 'sim reply';
      const result = simTagContent(call, 'result', true);
      // A result of several final subtasks comes as `## id` sections: each must be sound.
      const parts = (result === '(no result)' ? '' : (result ?? '')).split(/^## .*$/m).filter((p) => p.trim() !== '');
      const success = parts.length > 0 && parts.every((part) => simOutputSound(part));
      return JSON.stringify({
        success,
        reason: success ? 'the result is complete' : 'the result is missing or built on a missing input',
      });
    },
  },
});
