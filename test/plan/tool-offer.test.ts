import { describe, expect, it } from 'vitest';
import { parseWorkflow } from '../../src/graph/index.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { planTask } from '../../src/plan/plan-task.js';
import { mergeUpdate } from '../../src/plan/merge-update.js';
import { toolsPromptSection } from '../../src/plan/tool-offer.js';

const offers = [
  { name: 'search_orders', description: 'Finds orders\nby customer.' },
  { name: 'refund', description: 'x'.repeat(400) },
];

const answer = (tools: string[]) =>
  JSON.stringify({
    roles: [{ name: 'clerk', prompt: 'You handle orders.', tools }],
    subtasks: [{ id: 't1', objective: 'find the order', agent: 'clerk', dependsOn: [] }],
  });

describe('tools offered to the planner', () => {
  it('are listed in the prompt (long descriptions cut); a role may name them and keeps them in the plan', async () => {
    const prompts: string[] = [];
    const model = scriptedModel((call) => {
      prompts.push(call.messages[0]!.content);
      return answer(['search_orders', 'search_orders']);
    });
    const result = await planTask({ task: 'Refund order 7', model, candidates: 1, tools: offers });
    expect(prompts[0]).toContain('<tools>\n- search_orders: Finds orders by customer.\n- refund: xxx');
    expect(prompts[0]).toContain(`${'x'.repeat(300)}…\n</tools>`);
    expect(result.workflow.roles[0]).toMatchObject({ name: 'clerk', tools: ['search_orders'] });
    expect(toolsPromptSection([])).toBe('');
  });

  it('a role naming a tool that was not offered is re-prompted with the exact error', async () => {
    const prompts: string[] = [];
    let calls = 0;
    const model = scriptedModel((call) => {
      prompts.push(call.messages.map((message) => message.content).join('\n'));
      return calls++ === 0 ? answer(['delete_everything']) : answer(['refund']);
    });
    const result = await planTask({ task: 'Refund order 7', model, candidates: 1, tools: offers });
    expect(calls).toBe(2);
    expect(prompts[1]).toContain('unknown tool "delete_everything"; the tools are: search_orders, refund');
    expect(result.workflow.roles[0]!.tools).toEqual(['refund']);
  });

  it('an inspector revising a role keeps its tools and cannot grant new ones', () => {
    const parsed = parseWorkflow({
      task: 'T',
      roles: [{ name: 'clerk', prompt: 'You handle orders.', tools: ['refund'] }],
      subtasks: [{ id: 't1', objective: 'refund', agent: 'clerk' }],
    });
    if (!parsed.ok) throw new Error('plan invalid');
    const merged = mergeUpdate(parsed.workflow, {
      roles: [
        { name: 'clerk', prompt: 'You refund carefully.', tools: ['delete_everything'] },
        { name: 'helper', prompt: 'You help.', tools: ['refund'] },
      ],
      subtasks: [
        { id: 't1', objective: 'refund', agent: 'clerk', dependsOn: [] },
        { id: 't2', objective: 'help', agent: 'helper', dependsOn: [] },
      ],
    });
    if (!merged.ok) throw new Error('merge failed');
    const roles = merged.workflow.roles;
    expect(roles).toContainEqual({ name: 'clerk', prompt: 'You refund carefully.', kind: 'llm', tools: ['refund'] });
    expect(roles).toContainEqual({ name: 'helper', prompt: 'You help.', kind: 'llm' });
  });
});

describe('role tools in plan files', () => {
  it('apply only to llm roles, and a tool listed twice is an error naming the field', () => {
    const parsed = parseWorkflow({
      task: 'T',
      roles: [
        { name: 'clerk', prompt: 'p', tools: ['a', 'b', 'a'] },
        { name: 'panel', prompt: 'p', kind: 'team', team: 't.yaml', tools: ['a'] },
      ],
      subtasks: [{ id: 't1', objective: 'o', agent: 'clerk' }],
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.map((issue) => `${issue.field}: ${issue.message}`)).toEqual([
      'roles[0].tools[2]: tool "a" is listed twice',
      'roles[1].tools: "tools" applies only to roles of kind "llm"',
    ]);
  });
});
