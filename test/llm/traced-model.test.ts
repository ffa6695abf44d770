import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetry, stopTelemetry } from '../../src/llm/start-telemetry.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { tracedModel } from '../../src/llm/traced-model.js';
import { subtaskOfCall } from '../../src/run/subtask-of-call.js';
import { spanCollector } from '../run/span-collector.js';

afterEach(async () => {
  await stopTelemetry();
});

describe('tracedModel', () => {
  it('names the task a call serves only as the caller says: the run names a subtask by its execute and verify calls', async () => {
    const exporter = spanCollector();
    await startTelemetry({ exporter });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const run = tracedModel(scriptedModel([{ text: 'a', repeat: true }]), { taskOf: subtaskOfCall });
    await run.generate({ messages, tag: { purpose: 'execute', key: 's1', attempt: 1 } });
    await run.generate({ messages, tag: { purpose: 'verify', key: 's2' } });
    await run.generate({ messages, tag: { purpose: 'plan', key: 'p' } });
    // Without taskOf the model layer assumes nothing about purposes, even the run's.
    const plain = tracedModel(scriptedModel([{ text: 'b', repeat: true }]));
    await plain.generate({ messages, tag: { purpose: 'execute', key: 's3' } });
    await stopTelemetry();
    const chats = exporter.spans.filter((span) => span.name.startsWith('chat '));
    expect(chats.map((span) => [span.attributes['weft.call.purpose'], span.attributes['weft.task.id']])).toEqual([
      ['execute', 's1'],
      ['verify', 's2'],
      ['plan', undefined],
      ['execute', undefined],
    ]);
  });
});
