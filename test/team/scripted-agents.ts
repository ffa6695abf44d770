/**
 * Test helper: team agents whose answer, text and ratings per step come from a table. They receive the real
 * (shuffled) peers and record every input, so a test checks what each node saw; ratings are given by peer
 * name and returned aligned with the order actually shown.
 */
import { sleep } from '../../src/llm/timeout.js';
import type { AgentInput, AgentResponse, TeamAgent } from '../../src/team/team.js';

export interface ScriptedStep {
  readonly answer: string;
  /** Default `<agent> says <answer>`. */
  readonly text?: string;
  /** Rating of each peer by agent name. Default: 3 for every peer. */
  readonly ratings?: Readonly<Record<string, number>>;
  /** Pretend the ratings could not be read (the agent returns equal weights and `ratingsParsed: false`). */
  readonly unreadableRatings?: boolean;
  /** Returned as is instead of the aligned ratings (to test the engine's own checks). */
  readonly rawRatings?: readonly number[];
  readonly tests?: { readonly passed: number; readonly total: number };
  /** Wait this long before answering (to show that results do not depend on timing). */
  readonly delayMs?: number;
}

/** Per agent, one entry per step (index step − 1); a string is shorthand for `{ answer }`. */
export type ScriptTable = Readonly<Record<string, readonly (ScriptedStep | string)[]>>;

export interface ScriptedAgent extends TeamAgent {
  readonly inputs: AgentInput[];
  /** The names of the peers shown at `step`, in the order shown. */
  peersAt(step: number): string[];
}

export function scriptedAgents(
  table: ScriptTable,
  options: { kind?: TeamAgent['kind']; calls?: number } = {},
): ScriptedAgent[] {
  return Object.entries(table).map(([name, steps]) => {
    const inputs: AgentInput[] = [];
    return {
      name,
      kind: options.kind ?? 'llm',
      inputs,
      peersAt(step: number) {
        const input = inputs.find((i) => i.step === step);
        if (!input) throw new Error(`${name} did not answer at step ${step}`);
        return input.peers.map((p) => p.agent);
      },
      async respond(input: AgentInput, signal?: AbortSignal): Promise<AgentResponse> {
        inputs.push(input);
        const entry = steps[input.step - 1];
        if (entry === undefined) throw new Error(`the table has no step ${input.step} for ${name}`);
        const step: ScriptedStep = typeof entry === 'string' ? { answer: entry } : entry;
        if (step.delayMs !== undefined) await sleep(step.delayMs, signal);
        const aligned = input.peers.map((peer) => {
          if (!step.ratings) return 3;
          const rating = step.ratings[peer.agent];
          if (rating === undefined)
            throw new Error(`${name} at step ${input.step} has no rating for peer ${peer.agent}`);
          return rating;
        });
        return {
          answer: step.answer,
          text: step.text ?? `${name} says ${step.answer}`,
          ratings: step.rawRatings ?? (step.unreadableRatings ? input.peers.map(() => 3) : aligned),
          ratingsParsed: !step.unreadableRatings,
          calls: options.calls ?? 1,
          ...(step.tests ? { tests: step.tests } : {}),
        };
      },
    };
  });
}
