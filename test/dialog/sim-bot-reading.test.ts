/**
 * How the sim bot reads its prompt and the person's plain words: slots recognised by their description, bare
 * answers, non-answers; the procedure's side branches; the controllers' notes as the engine writes them (heeded
 * at HEED_NOTE, a refused call not proposed again in its turn), so that guidance alone lowers the violations a
 * slipping bot executes and the post-decision controllers stop the rest.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROCEDURES_DIR } from '../../examples/procedures/reference-replay.js';
import { botSystemPrompt } from '../../src/dialog/bot-prompt.js';
import type { ControllerMode } from '../../src/dialog/controller.js';
import { createConversation } from '../../src/dialog/conversation.js';
import { dependencyController } from '../../src/dialog/dependency-controller.js';
import { SessionFold } from '../../src/dialog/fold-session.js';
import { loadPdlFile } from '../../src/dialog/parse-pdl.js';
import { HEED_NOTE, simBotMove } from '../../src/dialog/sim-bot.js';
import { readPromptGuidance, readPromptProcedure, readPromptSlots } from '../../src/dialog/sim-bot-prompt.js';
import { sideBranches } from '../../src/dialog/sim-procedure-branches.js';
import { readUserDetails, slotShapes } from '../../src/dialog/sim-slot-reader.js';
import type { ToolDeclaration } from '../../src/llm/chat-model.js';
import { randomFrom } from '../../src/llm/seeded-random.js';
import { simModel } from '../../src/llm/sim-model.js';
import type { Tool } from '../../src/tools/tool.js';

const loadProcedure = (name: string) => loadPdlFile(join(PROCEDURES_DIR, name, `${name}.pdl.yaml`));

const METHOD_TOOL: ToolDeclaration = {
  name: 'issue_refund',
  description: '',
  inputSchema: {
    type: 'object',
    properties: {
      return_id: { type: 'string' },
      method: { type: 'string', enum: ['original_payment', 'store_credit'] },
    },
  },
};

describe('the sim bot reads the slots of its prompt', () => {
  it('recognises values by what the slot descriptions say, and takes a bare answer for the one thing asked', async () => {
    const pdl = await loadProcedure('order-return');
    const slots = readPromptSlots(botSystemPrompt(pdl, []));
    expect(slots.map((slot) => slot.name)).toEqual(pdl.slots.map((slot) => slot.name));
    expect(slots.find((slot) => slot.name === 'quantity')).toMatchObject({ type: 'int' });
    const shapes = slotShapes(slots, [METHOD_TOOL]);
    // The example `e.g. O-5005` gives the order's shape; `WC-03` is the sku's, so neither takes the other.
    expect(readUserDetails('I want to return the webcam from order O-5005', [], shapes)).toEqual([
      ['order_id', 'O-5005'],
    ]);
    expect(readUserDetails('It is WC-03 from O-5005.', [], shapes)).toEqual([
      ['order_id', 'O-5005'],
      ['sku', 'WC-03'],
    ]);
    expect(readUserDetails('grace@example.com', ['email'], shapes)).toEqual([['email', 'grace@example.com']]);
    expect(readUserDetails('20500', ['postal_code'], shapes)).toEqual([['postal_code', '20500']]);
    // Several asked at once: a number for the count, the enum by its words, the sentence left for the reason.
    expect(
      readUserDetails(
        'Just the one. The picture is blurry. Please refund it to my original payment.',
        ['quantity', 'reason'],
        shapes,
      ),
    ).toEqual([
      ['quantity', 1],
      ['method', 'original_payment'],
      ['reason', 'The picture is blurry'],
    ]);
    // A number is read only when asked for: a postal code is no quantity.
    expect(readUserDetails('20500', [], shapes)).toEqual([]);
    // Pairs win: nothing else is read from a message that has them.
    expect(readUserDetails('Sure. email: ada@example.com, order_id: O-5001', ['email'], shapes)).toEqual([
      ['email', 'ada@example.com'],
      ['order_id', 'O-5001'],
    ]);
  });

  it('takes no question, cancellation or non-answer as a value', async () => {
    const pdl = await loadProcedure('order-return');
    const shapes = slotShapes(readPromptSlots(botSystemPrompt(pdl, [])), []);
    for (const text of [
      'no',
      'Hmm.',
      'Why do you need that?',
      'Actually, I have changed my mind. I want to cancel this request.',
    ]) {
      expect(readUserDetails(text, ['reason'], shapes), text).toEqual([]);
    }
  });

  it('reads a message of 32 KB without an address or a number in it, and finds one at its end', async () => {
    // Patterns start only where a run of word characters starts: no rescanning the run from every position.
    const pdl = await loadProcedure('order-return');
    const shapes = slotShapes(readPromptSlots(botSystemPrompt(pdl, [])), []);
    for (const run of ['a'.repeat(32_000), '1'.repeat(32_000), 'a-'.repeat(16_000)]) {
      expect(readUserDetails(run, ['reason'], shapes)).toEqual([['reason', run]]);
      expect(readUserDetails(`${run} grace@example.com`, ['email'], shapes)).toEqual([['email', 'grace@example.com']]);
    }
  });

  it('gives a date to the date slot asked for, and to none when two date slots could take it unasked', async () => {
    const pdl = await loadProcedure('insurance-claim');
    const shapes = slotShapes(readPromptSlots(botSystemPrompt(pdl, [])), []);
    expect(readUserDetails('1990-02-03', ['incident_date'], shapes)).toEqual([['incident_date', '1990-02-03']]);
    expect(readUserDetails('It happened on 2026-01-08.', [], shapes)).toEqual([]);
    // A list the description ends with: `one of water_damage, fire, …`.
    expect(readUserDetails('There was water damage in the kitchen', [], shapes)).toEqual([
      ['incident_type', 'water_damage'],
    ]);
  });
});

describe('the sim bot reads the procedure and the controllers’ notes', () => {
  it('finds the side branches: an except branch after its try failed, optional if branches', async () => {
    const read = async (name: string) => {
      const pdl = await loadProcedure(name);
      const procedure = readPromptProcedure(botSystemPrompt(pdl, []));
      expect(procedure).toBe(pdl.procedure.trim());
      const branches = sideBranches(
        procedure,
        pdl.apis.map((api) => api.name),
      );
      return Object.fromEntries(
        [...branches].map(([api, branch]) => [api, { after: [...branch.afterFailureOf], optional: branch.optional }]),
      );
    };
    expect(await read('appointment-booking')).toEqual({
      register_patient: { after: ['find_patient'], optional: false },
      list_departments: { after: [], optional: true },
    });
    expect(await read('card-replacement')).toEqual({ list_cards: { after: ['block_card'], optional: true } });
    expect(await read('order-return')).toEqual({});
  });

  it('reads the dependency controller’s note as the engine writes it', async () => {
    const pdl = await loadProcedure('order-return');
    const fold = new SessionFold();
    const note = dependencyController().pre!({ pdl, state: fold.state })!;
    const guidance = readPromptGuidance(botSystemPrompt(pdl, [note]));
    expect([...guidance.unavailable]).toEqual(['verify_customer', 'create_return', 'approve_return', 'issue_refund']);
    expect(guidance.closeNow).toBe(false);
    expect(readPromptGuidance(botSystemPrompt(pdl, [])).unavailable.size).toBe(0);
  });

  it('heeds a note against the API it slips towards about HEED_NOTE of the time, and always without the note', async () => {
    const pdl = await loadProcedure('order-return');
    const note = dependencyController().pre!({ pdl, state: new SessionFold().state })!;
    const tools: ToolDeclaration[] = pdl.apis.map((api) => ({
      name: api.name,
      description: '',
      inputSchema: { type: 'object', properties: Object.fromEntries(api.request.map((name) => [name, {}])) },
    }));
    const slips = (notes: readonly string[]): number => {
      const system = botSystemPrompt(pdl, notes);
      const prompt = {
        apis: pdl.apis,
        slots: readPromptSlots(system),
        guidance: readPromptGuidance(system),
        branches: sideBranches(
          readPromptProcedure(system),
          pdl.apis.map((api) => api.name),
        ),
      };
      let count = 0;
      for (let index = 0; index < 400; index++) {
        const stream = (name: string) => randomFrom(7, index, name);
        const move = simBotMove(prompt, tools, [{ role: 'user', content: 'email: grace@example.com' }], 1, {
          violate: stream('violate'),
          api: stream('api'),
          args: stream('args'),
          heed: stream('heed'),
        });
        if (move.toolCall && move.toolCall.name !== 'find_customer') count++;
      }
      return count;
    };
    expect(slips([])).toBe(400);
    const heeded = 400 - slips([note]);
    // Fixed seeds: the count is the same every run; the bound says it is about HEED_NOTE.
    expect(heeded / 400).toBeGreaterThan(HEED_NOTE - 0.1);
    expect(heeded / 400).toBeLessThan(HEED_NOTE + 0.1);
  });
});

describe('the controllers against a slipping sim bot, in the engine', () => {
  /** In-process tools that answer every API with its response fields. */
  const tools = (apis: readonly { name: string; response: readonly string[] }[]): Tool[] =>
    apis.map((api) => ({
      name: api.name,
      description: api.name,
      inputSchema: { type: 'object' },
      source: 'test',
      call: async () => Object.fromEntries(api.response.map((field) => [field, `${field}-1`])),
    }));

  const run = async (mode: ControllerMode) => {
    const pdl = await loadProcedure('order-return');
    let proposed = 0;
    let executed = 0;
    let refusedAgain = 0;
    for (let session = 0; session < 12; session++) {
      const conversation = await createConversation(pdl, {
        model: simModel('violate=0.5,seed=3'),
        tools: tools(pdl.apis),
        controllerMode: mode,
        seedKey: `s${session}`,
      });
      const refusedThisTurn = new Set<string>();
      for (const message of [
        'email: grace@example.com, order_id: O-5005',
        'postal_code: 20500',
        'sku: WC-03, quantity: 1, reason: blurry, method: original_payment',
      ]) {
        refusedThisTurn.clear();
        const { events } = await conversation.send(message);
        for (const event of events) {
          if (event.type === 'tool-call' && !event.preconditionsMet) executed++;
          if (event.type === 'verdict' && !event.accepted && event.controller === 'dependency') {
            if (refusedThisTurn.has(event.action)) refusedAgain++;
            refusedThisTurn.add(event.action);
          }
          if (event.type === 'decision' && event.action.kind === 'tool') proposed++;
        }
      }
      await conversation.close();
    }
    return { proposed, executed, refusedAgain };
  };

  it('guidance alone executes fewer violations than no controllers; with post-decision controllers none', async () => {
    const none = await run('none');
    const preOnly = await run('pre-only');
    const all = await run('all');
    expect(none.executed).toBeGreaterThan(5);
    expect(preOnly.executed).toBeLessThan(none.executed);
    expect(preOnly.executed).toBeGreaterThan(0);
    expect(all.executed).toBe(0);
    // A call the dependency controller refused is not proposed again in the same turn.
    expect(all.refusedAgain).toBe(0);
  });
});
