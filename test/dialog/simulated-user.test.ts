import { describe, expect, it } from 'vitest';
import { parseProfiles } from '../../src/dialog/profiles.js';
import { simulatedUserMessages, simulateUserTurn } from '../../src/dialog/simulated-user.js';
import { WeftError } from '../../src/errors.js';
import { readDialogBlock } from '../../src/dialog/dialog-prompt-tags.js';
import { sequenceModel } from '../llm/fake-models.js';

const [profile] = parseProfiles(
  JSON.stringify({
    id: 'p1',
    persona: 'A busy nurse',
    details: { order_id: 'A-1' },
    needs: ['return a kettle'],
    style: 'terse',
    pattern: 'gives everything at once',
    required_apis: ['check_order'],
    goals: ['return the kettle'],
  }),
  'p.jsonl',
);

describe('simulateUserTurn', () => {
  it('plays the profile from a <profile> block, with the roles flipped, keyed by the session', async () => {
    const model = sequenceModel(['  I want to return order A-1.  ']);
    const turn = await simulateUserTurn(model, {
      profile: profile!,
      history: [
        { role: 'user', text: 'Hello' },
        { role: 'bot', text: 'Hi! How can I help?' },
      ],
      key: 'p1#1',
    });
    expect(turn).toMatchObject({ text: 'I want to return order A-1.', ended: false });
    const call = model.calls[0]!;
    expect(call.tag).toEqual({ purpose: 'simulate-user', key: 'p1#1' });
    expect(readDialogBlock(call.system!, 'profile')).toEqual({
      id: 'p1',
      persona: 'A busy nurse',
      details: { order_id: 'A-1' },
      needs: ['return a kettle'],
      style: 'terse',
      pattern: 'gives everything at once',
    });
    expect(readDialogBlock(call.system!, 'oow')).toBeUndefined();
    // The opening stands in for the bot before the user's first message; the bot's reply is a `user` message.
    expect(call.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(call.messages[2]).toEqual({ role: 'user', content: 'Hi! How can I help?' });
  });

  it('adds the <oow> block with its instruction on an injected turn only', async () => {
    const model = sequenceModel(['What time is it in Lisbon?']);
    await simulateUserTurn(model, {
      profile: profile!,
      history: [],
      oow: { category: 'irrelevant_answering', subtype: 'topic_shift' },
      key: 'p1#1',
    });
    const block = readDialogBlock(model.calls[0]!.system!, 'oow') as Record<string, string | undefined>;
    expect(block.category).toBe('irrelevant_answering');
    expect(block.subtype).toBe('topic_shift');
    expect(block.instruction?.length).toBeGreaterThan(40);
    expect(model.calls[0]!.messages).toHaveLength(1);
  });

  it('detects [END] anywhere in the reply; an empty reply is an error', async () => {
    const ending = await simulateUserTurn(sequenceModel(['Thanks, that is all. [END]']), {
      profile: profile!,
      history: [],
      key: 'k',
    });
    expect(ending).toMatchObject({ ended: true, text: 'Thanks, that is all.' });
    const error = await simulateUserTurn(sequenceModel(['   ']), { profile: profile!, history: [], key: 'k' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WeftError);
    expect((error as WeftError).code).toBe('PARSE');
  });

  it('a first message from the bot needs no opening', () => {
    expect(simulatedUserMessages([{ role: 'bot', text: 'Welcome' }])).toEqual([{ role: 'user', content: 'Welcome' }]);
  });
});
