/**
 * `simulateApis` answers every API of the procedure that has no tool at all, not only the ones a tools spec
 * declares: `weft chat PDL --simulate-apis` works on a procedure with no tools file.
 */
import { describe, expect, it } from 'vitest';
import { createConversation } from '../../src/dialog/conversation.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { refundPdl } from './dialog-fixtures.js';

describe('simulated APIs without any tool', () => {
  it('binds every API to the simulator and calls it', async () => {
    const apiReplies: string[] = [];
    const apiModel = scriptedModel(() => {
      apiReplies.push('find_customer');
      return '{"status": 200, "data": {"customer_id": "C-1"}}';
    });
    const conversation = await createConversation(refundPdl(), {
      model: scriptedModel([
        { toolCalls: [{ name: 'find_customer', args: { email: 'a@x.io' } }] },
        { text: 'Found you.' },
      ]),
      tools: [],
      simulateApis: true,
      apiModel,
    });
    const turn = await conversation.send('email: a@x.io');
    expect(apiReplies).toEqual(['find_customer']);
    expect(JSON.stringify(turn)).toContain('C-1');
    await conversation.close();
  });

  it('still refuses a procedure whose APIs have no tool when nothing simulates them', async () => {
    await expect(createConversation(refundPdl(), { model: scriptedModel([]), tools: [] })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('--simulate-apis'),
    });
  });
});
