/**
 * A simulated session (`weft simulate`'s engine) whose bot repeats a call that changes things: the repetition
 * controller keeps the second execution from the API, the report counts the refusal, and the paper's-code behaviour
 * (the limit alone, rule `count`) shows what happens without it.
 */
import { describe, expect, it } from 'vitest';
import { parseProfiles } from '../../src/dialog/profiles.js';
import { simulateSessions } from '../../src/dialog/simulate.js';
import type { Pdl } from '../../src/dialog/pdl.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';
import { refundPdl } from './dialog-fixtures.js';

const loanPdl = (repetition: Pdl['controllers']['repetition'] = true): Pdl =>
  refundPdl({
    name: 'loans',
    slots: [{ name: 'loan_id', desc: 'the loan' }],
    apis: [{ name: 'renew_loan', request: ['loan_id'], response: ['due'], precondition: [] }],
    procedure: '[due] = API.renew_loan(loan_id)',
    controllers: { repetition },
  });

function loanTool(): { tool: Tool; renewals: JsonValue[] } {
  const renewals: JsonValue[] = [];
  return {
    renewals,
    tool: {
      name: 'renew_loan',
      description: 'Renews a loan by four weeks.',
      inputSchema: { type: 'object', properties: { loan_id: { type: 'string' } }, required: ['loan_id'] },
      source: 'test',
      // Not idempotent: each call renews once more.
      async call(args) {
        renewals.push(args);
        return { due: `+${renewals.length * 4} weeks` };
      },
    },
  };
}

const profiles = parseProfiles(
  JSON.stringify({
    id: 'reader',
    persona: 'A library member',
    details: { loan_id: 'L-7' },
    needs: ['renew my loan'],
    required_apis: ['renew_loan'],
    goals: [{ goal: 'renew the loan', apis: ['renew_loan'] }],
  }),
  'profiles.jsonl',
);

const repeatingBot = () =>
  scriptedModel([
    { toolCalls: [{ name: 'renew_loan', args: { loan_id: 'L-7' } }] },
    { toolCalls: [{ name: 'renew_loan', args: { loan_id: 'L-7' } }] },
    { text: 'Your loan L-7 is renewed.' },
  ]);
const judge = () => scriptedModel([{ text: '{"success": true, "achieved": [0], "reason": "renewed"}' }]);
const user = () => scriptedModel([{ text: 'Please renew loan_id: L-7' }, { text: '[END]' }]);

describe('a simulated session that repeats a non-idempotent call', () => {
  it('renews once: the repeat is refused and counted as a rejection', async () => {
    const { tool, renewals } = loanTool();
    const report = await simulateSessions(loanPdl(), {
      profiles,
      model: repeatingBot(),
      userModel: user(),
      judge: judge(),
      tools: [tool],
    });
    expect(renewals).toEqual([{ loan_id: 'L-7' }]);
    expect(report.perSession[0]).toMatchObject({ calledApis: ['renew_loan'], rejections: 1, toolF1Multiset: 1 });
  });

  it('under the limit alone (rule count) the same bot renews twice', async () => {
    const { tool, renewals } = loanTool();
    const report = await simulateSessions(loanPdl({ rule: 'count' }), {
      profiles,
      model: repeatingBot(),
      userModel: user(),
      judge: judge(),
      tools: [tool],
    });
    expect(renewals).toHaveLength(2);
    expect(report.perSession[0]).toMatchObject({ calledApis: ['renew_loan', 'renew_loan'], rejections: 0 });
  });

  it('the sim bot that repeats its last call (violate=1) renews once all the same', async () => {
    const { tool, renewals } = loanTool();
    const report = await simulateSessions(loanPdl(), {
      profiles,
      model: await createModel('sim:seed=1,violate=1'),
      userModel: await createModel('sim:seed=2'),
      judge: await createModel('sim:seed=3'),
      tools: [tool],
      maxTurns: 4,
    });
    expect(renewals).toEqual([{ loan_id: 'L-7' }]);
    expect(report.perSession[0]?.rejections).toBeGreaterThan(0);
    expect(report.perSession[0]?.calledApis).toEqual(['renew_loan']);
  });
});
