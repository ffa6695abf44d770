/** measureCostSaved with fake stages: solving N instances costs N agent runs; distilling once and running N costs one. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureCostSaved } from '../../bench/distill-cost.js';
import type { SuiteStagesFactory } from '../../src/distill/evaluate-suite.js';
import { loadSuite, type SuiteTask } from '../../src/distill/load-suite.js';
import { openSuiteTools, type SuiteTools } from '../../src/distill/open-suite-tools.js';
import type { ChatModel } from '../../src/llm/chat-model.js';

let tasks: readonly SuiteTask[];
let tools: SuiteTools;
beforeAll(async () => {
  tasks = (await loadSuite('examples/distill-suite', { only: ['gcd', 'sum-to-n'] })).tasks;
  tools = await openSuiteTools(tasks);
});
afterAll(async () => tools?.close());

const model: ChatModel = {
  id: 'scripted:fake',
  kind: 'scripted',
  async generate() {
    return { text: 'ok', usage: { inputTokens: 100, outputTokens: 20 }, model: 'fake' };
  },
};

/** Execute: two model calls per instance; summarize: one, returning the reference. */
const stages: SuiteStagesFactory = (taskModel) => ({
  execute: async (input, _expected, { task }) => {
    for (let call = 0; call < 2; call++) await taskModel.generate({ messages: [{ role: 'user', content: 'step' }] });
    return {
      traceId: 't-1',
      task: task.description,
      mode: 'plan-execute',
      model: taskModel.id,
      input,
      calls: [],
      success: true,
      usage: { calls: 2, inputTokens: 200, outputTokens: 40 },
    };
  },
  summarize: async (_traces, { task }) => {
    await taskModel.generate({ messages: [{ role: 'user', content: 'summarize' }] });
    return {
      workflow: task.reference!,
      finished: true,
      problems: [],
      valid: true,
      mixedCalls: 0,
      graphCalls: 3,
      steps: 1,
      usage: { calls: 1, inputTokens: 100, outputTokens: 20 },
    };
  },
});

describe('measureCostSaved', () => {
  it('counts N agent runs against one distillation and N model-free workflow runs', async () => {
    const result = await measureCostSaved({ tasks, model, toolsFor: tools.toolsFor, instances: 20, stages });
    expect(result.simulated).toBe(true);
    for (const task of result.tasks) {
      expect(task.solveEach).toMatchObject({ calls: 40, inputTokens: 4000, outputTokens: 800, solved: 20 });
      // Two train inputs executed (2 calls each) and one summarize call.
      expect(task.distilOnce).toMatchObject({ calls: 5, inputTokens: 500, outputTokens: 100 });
      expect(task.execEach).toMatchObject({ llmCalls: 0, correct: 20, errors: 0 });
    }
    expect(result.total).toMatchObject({ execLlmCalls: 0, savedCalls: 70, savedTokens: 2 * (4800 - 600) });
  });
});
