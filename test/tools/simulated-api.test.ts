import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { simModel } from '../../src/llm/sim-model.js';
import { callTool } from '../../src/tools/call-tool.js';
import { declaredTool } from '../../src/tools/flowagent-tools-spec.js';
import { bindSimulatedTools, simulatedTool } from '../../src/tools/simulated-api.js';

const declaration = {
  name: 'checkRooms',
  description: 'Whether the hotel has a free room',
  inputSchema: {
    type: 'object',
    properties: { hotel_code: { type: 'string' }, nights: { type: 'integer' } },
    required: ['hotel_code'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      has_room: { type: 'string', description: 'Enumerated type, [true, false]' },
      rooms_left: { type: 'integer' },
      kind: { enum: ['Single', 'Double'] },
      note: { type: 'string' },
    },
  },
  source: 'tools spec t.yaml:1',
};

describe('simulatedTool', () => {
  it('asks its model to play the server, with the declaration, the request and the context; 2xx is the result', async () => {
    const model = scriptedModel([{ text: 'Here: ```json\n{"status": 200, "data": {"has_room": "true"}}\n```' }]);
    const usages: unknown[] = [];
    const tool = simulatedTool(declaration, {
      model,
      context: () => ({ procedure: 'Book a room.', conversation: 'Customer: a room in H-1, please' }),
      onUsage: (usage) => usages.push(usage),
    });
    expect(tool).toMatchObject({ name: 'checkRooms', simulated: true, idempotent: false });
    expect(tool.source).toBe('tools spec t.yaml:1, simulated by scripted');
    const outcome = await callTool(tool, { hotel_code: 'H-1' });
    expect(outcome).toMatchObject({ ok: true, result: { has_room: 'true' } });
    const call = model.calls[0]!;
    expect(call.tag?.purpose).toBe('simulate-api');
    const prompt = call.messages[0]!.content;
    expect(prompt).toContain('Book a room.');
    expect(prompt).toContain('Customer: a room in H-1, please');
    expect(prompt).toContain('"description": "Enumerated type, [true, false]"');
    expect(prompt).toMatch(/<simulated-request>\s*\{\s*"name": "checkRooms",\s*"args": \{\s*"hotel_code": "H-1"/);
    expect(usages).toEqual([expect.objectContaining({ model: 'scripted', calls: 1 })]);
  });

  it('another status is a tool error the caller sees as an HTTP one; junk twice is a tool error too', async () => {
    const refused = simulatedTool(declaration, {
      model: scriptedModel([{ text: '{"status": "422", "data": {"error": "unknown hotel"}}' }]),
    });
    const outcome = await callTool(refused, { hotel_code: 'nope' });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toBe('checkRooms: HTTP 422: {"error":"unknown hotel"} (simulated)');
    const junk = simulatedTool(declaration, { model: scriptedModel([{ text: 'no idea', repeat: true }]) });
    const failed = await callTool(junk, { hotel_code: 'H-1' });
    expect(failed.ok).toBe(false);
    if (!failed.ok)
      expect(failed.error.message).toMatch(/^checkRooms: the model simulating checkRooms gave no usable answer/);
  });

  it('bad arguments are refused by the schema before the model is asked', async () => {
    const model = scriptedModel([{ text: '{"status": 200, "data": {}}' }]);
    const outcome = await callTool(simulatedTool(declaration, { model }), { nights: 'two' });
    expect(outcome.ok).toBe(false);
    expect(model.calls).toHaveLength(0);
  });

  it('the sim answers every output field deterministically: listed values, enums, types', async () => {
    const tool = simulatedTool(declaration, { model: simModel('seed=3') });
    const first = await callTool(tool, { hotel_code: 'H-1' });
    const again = await callTool(tool, { hotel_code: 'H-1' });
    const other = await callTool(tool, { hotel_code: 'H-2', nights: 2 });
    if (!first.ok || !again.ok || !other.ok) throw new Error('expected answers');
    expect(first.result).toEqual(again.result);
    const result = first.result as Record<string, unknown>;
    expect(['true', 'false']).toContain(result.has_room);
    expect(['Single', 'Double']).toContain(result.kind);
    expect(Number.isInteger(result.rooms_left)).toBe(true);
    expect(result.note).toMatch(/^note-\d+$/);
    // Another request draws anew (over a few requests, some answer differs).
    const answers = new Set<string>();
    for (let n = 0; n < 8; n++) {
      const outcome = await callTool(tool, { hotel_code: `H-${n}` });
      if (outcome.ok) answers.add(JSON.stringify(outcome.result));
    }
    expect(answers.size).toBeGreaterThan(1);
    expect(other.ok).toBe(true);
  });
});

describe('bindSimulatedTools', () => {
  it('answers declared tools through the model and leaves real ones as they are', async () => {
    const declared = declaredTool(declaration);
    const real = { ...declared, name: 'real', declaredOnly: false, call: async () => 'real answer' };
    const [simulated, kept] = bindSimulatedTools([declared, real], { model: simModel('seed=1') }, { declared: true });
    expect(bindSimulatedTools([declared], { model: simModel('seed=1') })[0]).toBe(declared);
    expect(simulated!.simulated).toBe(true);
    expect(kept).toBe(real);
    await expect(declared.call({}, { signal: new AbortController().signal })).rejects.toBeInstanceOf(WeftError);
    expect((await callTool(simulated!, { hotel_code: 'H' })).ok).toBe(true);
  });
});
