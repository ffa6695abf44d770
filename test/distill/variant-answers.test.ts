/**
 * The four variants read final answers with one parser (final-answer.ts): for ES-P&E, ES-ReAct, ReAct and P&E, a
 * correct answer given in a ```json fence or in a sentence ("The answer is 6.") makes the train traces successful
 * (execution complete) and the task correct, and a wrong answer in the same dress stays wrong.
 *
 * The model is a scripted responder that lets the sim do the tool work (it follows the task's reference) and writes
 * every final answer of an agent solving an instance in the dress under test; the real stages run (suite-stages.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distillPhaseOf } from '../../src/distill/distill-prompt.js';
import { withDistillSim } from '../../src/distill/distill-sim.js';
import { evaluateSuite } from '../../src/distill/evaluate-suite.js';
import { loadSuite, type SuiteTask } from '../../src/distill/load-suite.js';
import { openSuiteTools, type SuiteTools } from '../../src/distill/open-suite-tools.js';
import { isPlanningCall } from '../../src/distill/solve-prompts.js';
import type { DistillVariant } from '../../src/distill/stage-types.js';
import { suiteStages } from '../../src/distill/suite-stages.js';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { simModel } from '../../src/llm/sim-model.js';

let task: SuiteTask;
let tools: SuiteTools;

beforeAll(async () => {
  [task] = (await loadSuite('examples/distill-suite', { only: ['sum-to-n'] })).tasks as [SuiteTask];
  tools = await openSuiteTools([task]);
});
afterAll(async () => tools?.close());

type Dress = 'fence' | 'prose';

/** Whether this call asks an agent for its answer to one instance (not a plan, not the summarizer). */
function answersInstance(call: ChatCall): boolean {
  if (call.tag?.purpose === 'solve') return !isPlanningCall(call);
  return call.tag?.purpose === 'distill' && distillPhaseOf(call.system) === 'single' && (call.tools ?? []).length > 0;
}

/** The sim's work, with each final answer (JSON from the sim) written in `dress`, off by one when `wrong`. */
function dressedModel(dress: Dress, wrong = false) {
  const sim = withDistillSim(simModel({ seed: 1 }), task.reference);
  return scriptedModel(async (call) => {
    const reply = await sim.generate(call);
    if ((reply.toolCalls ?? []).length > 0) return { text: reply.text, toolCalls: reply.toolCalls };
    if (!answersInstance(call)) return reply.text;
    let value: unknown;
    try {
      value = JSON.parse(reply.text);
    } catch {
      return reply.text;
    }
    const shown = JSON.stringify(wrong && typeof value === 'number' ? value + 1 : value);
    return dress === 'fence'
      ? `Here is what the tools gave.\n\`\`\`json\n${shown}\n\`\`\``
      : `I worked through the numbers with the tools. The answer is ${shown}.`;
  });
}

const VARIANTS: DistillVariant[] = ['es-pe', 'es-react', 'react', 'pe'];

async function run(variant: DistillVariant, dress: Dress, wrong = false) {
  const report = await evaluateSuite([task], {
    model: dressedModel(dress, wrong),
    stages: suiteStages,
    variants: [variant],
    toolsFor: tools.toolsFor,
  });
  return report.tasks[0];
}

describe('every variant reads a fenced or a prose final answer the same way', () => {
  for (const variant of VARIANTS) {
    for (const dress of ['fence', 'prose'] as const) {
      it(`${variant}: a correct answer in a ${dress} counts (execution complete, task correct)`, async () => {
        const evaluation = await run(variant, dress);
        expect(evaluation?.error).toBeUndefined();
        expect(evaluation).toMatchObject({ executionComplete: true, correct: true, graphValid: true });
        expect(evaluation?.successfulTraces).toBe(evaluation?.trainTraces);
      });
    }
    it(`${variant}: a wrong answer in a fence or in prose stays wrong (execution incomplete)`, async () => {
      for (const dress of ['fence', 'prose'] as const) {
        const evaluation = await run(variant, dress, true);
        expect(evaluation, dress).toMatchObject({ executionComplete: false, successfulTraces: 0 });
      }
    });
  }
});
