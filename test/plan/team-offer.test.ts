/** Teams offered to the planner (`weft run <task> --team file`): the prompt, the roles, and what a model cannot do. */
import { describe, expect, it } from 'vitest';
import type { WeftError } from '../../src/errors.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { answerToJson, planTask } from '../../src/plan/plan-task.js';
import { checkTeamOffers, teamsPromptSection, type TeamOffer } from '../../src/plan/team-offer.js';

const panel: TeamOffer = {
  name: 'panel',
  file: '/teams/panel.yaml',
  description: 'Four experts who debate\nuntil they agree.',
};
const coders: TeamOffer = { name: 'coders', file: '/teams/coders.yaml', description: 'Writes code that passes tests.' };

describe('teams offered to the planner', () => {
  it('are listed in the planner prompt by name and description, one line each', async () => {
    const prompts: string[] = [];
    const model = scriptedModel((call) => {
      prompts.push(call.messages[0]!.content);
      return JSON.stringify({ subtasks: [{ id: 't1', objective: 'answer', agent: 'panel', dependsOn: [] }] });
    });
    const result = await planTask({ task: 'Answer it', model, candidates: 2, teams: [panel, coders] });
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain(
      '<teams>\n- panel: Four experts who debate until they agree.\n- coders: Writes code that passes tests.\n</teams>',
    );
    expect(result.workflow.roles.find((role) => role.name === 'panel')).toEqual({
      name: 'panel',
      prompt: panel.description,
      kind: 'team',
      team: '/teams/panel.yaml',
    });
  });

  it('leave the prompt as it was without any', () => {
    expect(teamsPromptSection([])).toBe('');
  });

  it('turn a subtask naming a team into a team role, whatever role the model declared under that name', () => {
    const json = answerToJson(
      'T',
      {
        roles: [
          { name: 'panel', prompt: 'I am one agent.' },
          { name: 'writer', prompt: 'You write.' },
        ],
        subtasks: [
          { id: 'a', objective: 'hard question', agent: 'panel', dependsOn: [] },
          { id: 'b', objective: 'write it up', agent: 'writer', dependsOn: ['a'] },
        ],
      },
      [panel, coders],
    );
    expect(json.roles).toEqual([
      { name: 'writer', prompt: 'You write.', kind: 'llm' },
      { name: 'panel', prompt: panel.description, kind: 'team', team: panel.file },
      // Unused offers are listed too, so the inspector can give a failing subtask to them later.
      { name: 'coders', prompt: coders.description, kind: 'team', team: coders.file },
    ]);
  });

  it('never honour a team role the model invents: it would name a file the user never gave', () => {
    const json = answerToJson('T', {
      roles: [{ name: 'jury', prompt: 'A jury.', kind: 'team', team: '/etc/passwd' }],
      subtasks: [{ id: 'a', objective: 'decide', agent: 'jury', dependsOn: [] }],
    });
    expect(json.roles).toEqual([{ name: 'jury', prompt: 'A jury.', kind: 'llm' }]);
  });

  it('must have distinct names', () => {
    let error: WeftError | undefined;
    try {
      checkTeamOffers([panel, { ...coders, name: 'panel' }]);
    } catch (caught) {
      error = caught as WeftError;
    }
    expect(error).toMatchObject({ code: 'BAD_INPUT', location: { file: '/teams/coders.yaml', field: 'name' } });
    expect(error?.message).toContain('both named "panel"');
  });
});
