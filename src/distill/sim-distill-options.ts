/**
 * The `sim:` options of distillation's simulator (distill-sim.ts), registered by src/sim-responders.ts:
 *
 * | key       | value                                                        | default |
 * |-----------|--------------------------------------------------------------|---------|
 * | mistake   | summarizer: P(each graph-building call carries a mistake)    | 0       |
 * |           | (sim-summarize.ts)                                           |         |
 * | solvefail | execute stage: P(a reply gives up the instance), drawn per   | 0       |
 * |           | rollout (sim-solve.ts)                                       |         |
 * | reference | optional: a workflow file (JSON or YAML) that the sim        | —       |
 * |           | follows when it solves or distils                            |         |
 */
import { simPathOption, simProbabilityOption, type SimOptionKey } from '../llm/sim-options.js';

declare module '../llm/sim-options.js' {
  interface SimOptions {
    /** Distillation summarizer (purpose `distill`): P(a graph-building call carries a mistake). */
    readonly mistake: number;
    /**
     * Distillation execute stage (purpose `solve`): P(a reply gives up the instance instead of its next step), drawn
     * by the call's key and attempt (the rollout), so rollouts of one input differ.
     */
    readonly solvefail: number;
    /**
     * A reference workflow file the sim follows in the execute (`solve`) and summarize (`distill`) stages
     * (distill-sim.ts); relative to the working folder. The distillation harness can hand the sim a reference in
     * code instead.
     */
    readonly reference?: string;
  }
}

/** Distillation's sim option keys (in the places of a model id they always had). */
export const distillSimOptions: readonly SimOptionKey[] = Object.freeze([
  simProbabilityOption('mistake', { position: 170 }),
  simProbabilityOption('solvefail', { position: 180 }),
  simPathOption('reference', 'a workflow file', { position: 190 }) as SimOptionKey,
]);
