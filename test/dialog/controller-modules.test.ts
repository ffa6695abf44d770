import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createConversation } from '../../src/dialog/conversation.js';
import { loadControllerModules } from '../../src/dialog/load-controller-modules.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { countingTools, refundPdl } from './dialog-fixtures.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'chat');
const pdlFile = join(FIXTURES, 'refund-chat.pdl.yaml');

describe("a user's controller modules (controllers.modules in a PDL file)", () => {
  it('are loaded by createConversation: their guidance reaches the bot and their refusals hold', async () => {
    const pdl = refundPdl({
      file: pdlFile,
      controllers: { modules: [{ path: './business-hours.mjs', options: { closed: 'find_customer' } }] },
    });
    const { tools, calls } = countingTools();
    const model = scriptedModel([
      { toolCalls: [{ name: 'find_customer', args: { email: 'a' } }] },
      { text: 'Closed.' },
    ]);
    const conversation = await createConversation(pdl, { model, tools });
    const turn = await conversation.send('hi');
    expect(calls).toHaveLength(0);
    expect(model.calls[0]?.system).toContain('find_customer is closed today.');
    expect(
      turn.events.some((event) => event.type === 'verdict' && event.controller === 'business-hours' && !event.accepted),
    ).toBe(true);
    // --no-controllers drops them too.
    const off = await createConversation(pdl, {
      model: scriptedModel([{ toolCalls: [{ name: 'find_customer', args: { email: 'a' } }] }, { text: 'ok' }]),
      tools,
      controllerMode: 'none',
    });
    await off.send('hi');
    expect(calls).toHaveLength(1);
  });

  it('a missing module, a missing export or an export that is not a controller is a located BAD_INPUT', async () => {
    const at = (modules: { path: string; export?: string }[]) => refundPdl({ file: pdlFile, controllers: { modules } });
    await expect(loadControllerModules(at([{ path: './nope.mjs' }]))).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { file: pdlFile, field: 'controllers.modules[0].path' },
    });
    await expect(
      loadControllerModules(at([{ path: './business-hours.mjs', export: 'missing' }])),
    ).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('no export "missing"'),
    });
    await expect(
      loadControllerModules(at([{ path: './business-hours.mjs', export: 'notAController' }])),
    ).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('is not a controller') });
  });
});

describe('a controller that throws', () => {
  it('refuses the action it could not judge (fail closed) and gives no guidance; the session goes on', async () => {
    const { tools, calls } = countingTools();
    const broken = {
      name: 'broken',
      pre: () => {
        throw new Error('pre exploded');
      },
      post: (action: { kind: string }) => {
        if (action.kind === 'tool') throw new Error('post exploded');
        return { accepted: true as const };
      },
    };
    const model = scriptedModel([{ toolCalls: [{ name: 'find_customer', args: { email: 'a' } }] }, { text: 'Sorry.' }]);
    const conversation = await createConversation(refundPdl(), { model, tools, controllers: [broken] });
    const turn = await conversation.send('hi');
    expect(calls).toHaveLength(0);
    expect(turn.reply).toBe('Sorry.');
    const refused = turn.events.find(
      (event) => event.type === 'verdict' && event.controller === 'broken' && !event.accepted,
    );
    expect(refused).toMatchObject({ reason: expect.stringContaining('post exploded') });
  });

  it('keeps a __proto__ field of a result as a slot, not a prototype', async () => {
    const { tools } = countingTools();
    const odd = {
      ...tools[0]!,
      call: async () => JSON.parse('{"__proto__": {"polluted": true}, "customer_id": "C-9"}'),
    };
    const model = scriptedModel([{ toolCalls: [{ name: 'find_customer', args: { email: 'a' } }] }, { text: 'ok' }]);
    const conversation = await createConversation(refundPdl(), { model, tools: [odd, ...tools.slice(1)] });
    await conversation.send('hi');
    const slots = conversation.state.slots as Record<string, unknown>;
    expect(slots.customer_id).toBe('C-9');
    expect((slots as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
