/** What a metered model records of each call: the task it serves only as the engine says, a `model-call` event. */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { createMeter } from '../../src/runtime/budget.js';
import type { MeterEmit } from '../../src/runtime/meter-events.js';
import { meteredModel, recordRemoteCall, type MeterOptions } from '../../src/runtime/metered-model.js';
import { subtaskOfCall } from '../../src/run/subtask-of-call.js';

const messages = [{ role: 'user' as const, content: 'hi' }];

async function recorded(taskOf?: MeterOptions['taskOf']) {
  const events: Parameters<MeterEmit>[0][] = [];
  const options: MeterOptions = {
    budget: {},
    meter: createMeter(),
    now: () => 0,
    costOf: () => 0,
    emit: (event) => events.push(event),
    trace: false,
    ...(taskOf ? { taskOf } : {}),
  };
  const model = meteredModel(scriptedModel([{ text: 'ok', repeat: true }]), options);
  await model.generate({ messages, tag: { purpose: 'execute', key: 's1', attempt: 1 } });
  await model.generate({ messages, tag: { purpose: 'plan', key: 'p' } });
  recordRemoteCall(
    {
      purpose: 'verify',
      key: 's2',
      attempt: 1,
      sequence: 0,
      model: 'm',
      inputTokens: 1,
      outputTokens: 1,
      durationMs: 1,
      text: 'ok',
    },
    options,
  );
  return events.map((event) => [
    event.type,
    'purpose' in event ? event.purpose : undefined,
    'taskId' in event ? event.taskId : undefined,
  ]);
}

describe('meteredModel', () => {
  it("names a call's task as the engine's taskOf says (the run: a subtask's execute and verify calls)", async () => {
    expect(await recorded(subtaskOfCall)).toEqual([
      ['model-call', 'execute', 's1'],
      ['model-call', 'plan', undefined],
      ['model-call', 'verify', 's2'],
    ]);
  });

  it('assumes nothing about purposes without one', async () => {
    expect((await recorded()).map(([, , taskId]) => taskId)).toEqual([undefined, undefined, undefined]);
  });
});
