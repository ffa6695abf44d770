/**
 * Sizes are bounded (src/graph/limits.ts): in plan files and team files (refused with file and
 * field) and in model answers (a bad answer: re-prompted with the exact error, like invalid JSON).
 */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { parseWorkflow } from '../../src/graph/parse-workflow.js';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_PLANNED_SUBTASKS, MAX_TEAM_AGENTS } from '../../src/graph/limits.js';
import { scriptedModel } from '../../src/llm/scripted-model.js';
import { planTask } from '../../src/plan/plan-task.js';
import { parseTeamFile } from '../../src/team/parse-team-file.js';

const plan = (id: string, agent = 'writer') => ({
  task: 'T',
  subtasks: [{ id, objective: 'Write it.', agent, dependsOn: [] }],
});

describe('size limits', () => {
  it('refuses a plan file whose subtask id or role name is too long, naming the field and the length', () => {
    const longId = 'x'.repeat(2688);
    const result = parseWorkflow(JSON.stringify(plan(longId, 'r'.repeat(1938)), null, 2), { file: 'plan.json' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: 'plan.json',
          field: 'subtasks[0].id',
          line: 5,
          message: `must be at most ${MAX_ID_LENGTH} characters (got 2688)`,
        }),
        expect.objectContaining({
          field: 'subtasks[0].agent',
          message: `must be at most ${MAX_NAME_LENGTH} characters (got 1938)`,
        }),
      ]),
    );
    expect(parseWorkflow(plan('x'.repeat(MAX_ID_LENGTH))).ok).toBe(true);
  });

  it('refuses a team file with more agents than the limit at once, before any run', () => {
    const agents = Array.from({ length: 500 }, (_, index) => `  - name: a${index}\n    prompt: You answer.`).join('\n');
    let error: unknown;
    try {
      parseTeamFile(`name: crowd\nmodel: "sim:seed=1"\nagents:\n${agents}\n`, 'team.yaml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WeftError);
    expect((error as WeftError).code).toBe('BAD_INPUT');
    expect((error as WeftError).issues).toContainEqual(
      expect.objectContaining({
        file: 'team.yaml',
        field: 'agents',
        line: 3,
        message: `must list at most ${MAX_TEAM_AGENTS} agents (got 500)`,
      }),
    );
    const longName = parseTeamFile.bind(
      null,
      `name: ${'n'.repeat(65)}\nagents:\n  - name: a\n    prompt: p\n`,
      'team.yaml',
    );
    expect(longName).toThrow(WeftError);
  });

  it('re-prompts a planner whose answer breaks a limit, with the exact error, and uses the corrected answer', async () => {
    const good = JSON.stringify({ subtasks: [{ id: 't1', objective: 'Write it.', agent: 'writer', dependsOn: [] }] });
    const tooMany = JSON.stringify({
      subtasks: Array.from({ length: MAX_PLANNED_SUBTASKS + 1 }, (_, index) => ({
        id: `t${index + 1}`,
        objective: 'o',
        agent: 'writer',
        dependsOn: [],
      })),
    });
    for (const bad of [JSON.stringify(plan('x'.repeat(2688))), tooMany]) {
      const model = scriptedModel([{ text: bad }, { text: good }]);
      const result = await planTask({ task: 'T', model, candidates: 1 });
      expect(result.workflow.subtasks.map((subtask) => subtask.id)).toEqual(['t1']);
      const repair = model.calls[1]?.messages.at(-1)?.content ?? '';
      expect(repair).toMatch(
        bad === tooMany
          ? `subtasks: must list at most ${MAX_PLANNED_SUBTASKS} subtasks (got ${MAX_PLANNED_SUBTASKS + 1})`
          : `subtasks[0].id: must be at most ${MAX_ID_LENGTH} characters (got 2688)`,
      );
    }
  });
});
