import { describe, expect, it } from 'vitest';
import type { ChatCall, ChatModel } from '../../src/llm/chat-model.js';
import { buildTeam } from '../../src/team/build-team.js';
import { parseTeamFile } from '../../src/team/parse-team-file.js';
import type { TeamQuery, TeamSpec } from '../../src/team/team.js';

/** Models that answer a fixed reply and record which spec got which call. */
function modelFactory(reply: string) {
  const created: string[] = [];
  const calls: { model: string; call: ChatCall }[] = [];
  const createModel = async (spec: string): Promise<ChatModel> => {
    created.push(spec);
    return {
      id: `id:${spec}`,
      kind: 'scripted',
      async generate(call) {
        calls.push({ model: spec, call });
        return { text: reply, usage: { inputTokens: 0, outputTokens: 0 }, model: spec };
      },
    };
  };
  return { createModel, created, calls };
}

const query: TeamQuery = { question: 'Pick one.', choices: ['x', 'y'], kind: 'choice' };

describe('buildTeam', () => {
  it('resolves models agent → team → command, makes one model per spec, and adds a code runner for the tool', async () => {
    const spec = parseTeamFile(
      'name: t\nmodel: ollama:team-model\nanswerKind: code\nagents:\n  - name: a\n    prompt: Role A.\n  - name: b\n    prompt: Role B.\n    model: ollama:own-model\n  - name: c\n    prompt: Role C.\n  - name: runner\n    kind: tool\n    tool: code-runner\n',
    );
    const factory = modelFactory('{"answer": "B", "reasoning": "because"}');
    const team = await buildTeam(spec, { createModel: factory.createModel, defaultModel: 'ollama:cli-model' });
    expect(team.agents.map((agent) => [agent.name, agent.kind])).toStrictEqual([
      ['a', 'llm'],
      ['b', 'llm'],
      ['c', 'llm'],
      ['runner', 'tool'],
    ]);
    expect(team.models).toStrictEqual({
      a: 'id:ollama:team-model',
      b: 'id:ollama:own-model',
      c: 'id:ollama:team-model',
    });
    expect(team.rankerModel).toBe('id:ollama:team-model');
    expect(factory.created).toStrictEqual(['ollama:team-model', 'ollama:own-model']);

    // Each agent calls its own model with its role prompt.
    const response = await team.agents[1]!.respond({ query, step: 1, peers: [] });
    expect(response).toMatchObject({ answer: 'B', calls: 1 });
    expect(factory.calls).toHaveLength(1);
    expect(factory.calls[0]!.model).toBe('ollama:own-model');
    expect(factory.calls[0]!.call.system).toMatch(/^Role B\./);
  });

  it('uses the command model when the team names none, and a separate ranker model when given', async () => {
    const spec = parseTeamFile('name: t\nagents:\n  - name: a\n    prompt: p\n  - name: b\n    prompt: q\n');
    const factory = modelFactory('{"ranking": ["b", "a"]}');
    const team = await buildTeam(spec, {
      createModel: factory.createModel,
      defaultModel: 'cli-model',
      rankerModel: 'judge',
    });
    expect(team.models).toStrictEqual({ a: 'id:cli-model', b: 'id:cli-model' });
    expect(team.rankerModel).toBe('id:judge');
    const ranked = await team.ranker.rank(
      query,
      [
        { agent: 'a', answer: 'A', text: '' },
        { agent: 'b', answer: 'B', text: '' },
      ],
      1,
    );
    expect(ranked).toMatchObject({ ranking: ['b', 'a'], fallback: false, calls: 1 });
    expect(factory.calls.map((c) => [c.model, c.call.tag?.purpose])).toStrictEqual([['judge', 'rank']]);
  });

  it("gives the ranker the first llm agent's model when every agent names its own and nothing else is set", async () => {
    const spec = parseTeamFile(
      'name: t\nanswerKind: code\nagents:\n  - name: r\n    kind: tool\n    tool: code-runner\n  - name: a\n    prompt: p\n    model: ollama:m1\n  - name: b\n    prompt: q\n    model: ollama:m2\n',
    );
    const team = await buildTeam(spec, { createModel: modelFactory('').createModel });
    expect(team.rankerModel).toBe('id:ollama:m1');
  });

  it('fails with MODEL_CONFIG naming every agent without a model and the team file', async () => {
    const spec = parseTeamFile(
      'name: crew\nagents:\n  - name: a\n    prompt: p\n  - name: b\n    prompt: q\n    model: ollama:m\n  - name: c\n    prompt: r\n',
    );
    const factory = modelFactory('');
    const error = await buildTeam(spec, { createModel: factory.createModel, file: 'crew.yaml' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'MODEL_CONFIG',
      message:
        'agents "a", "c" of team "crew" (crew.yaml) have no model: set "model" on the agent or the team, or pass --model',
      location: { file: 'crew.yaml' },
      issues: [
        { file: 'crew.yaml', field: 'agents[0].model', message: 'agent "a" has no model' },
        { file: 'crew.yaml', field: 'agents[2].model', message: 'agent "c" has no model' },
      ],
    });
    expect(factory.created).toStrictEqual([]);
    const single = parseTeamFile('name: solo\nagents:\n  - name: a\n    prompt: p\n');
    await expect(buildTeam(single, { createModel: factory.createModel, file: 'solo.yaml' })).rejects.toMatchObject({
      code: 'MODEL_CONFIG',
      message:
        'agent "a" of team "solo" (solo.yaml) has no model: set "model" on the agent or the team, or pass --model',
    });
  });

  it('fails with MODEL_CONFIG when a team of tools leaves the ranker without a model', async () => {
    // A team file refuses this (no llm agent); buildTeam still guards a spec built in code.
    const spec: TeamSpec = {
      name: 'tools',
      answerKind: 'code',
      agents: [{ name: 'r', prompt: 'runs tests', kind: 'tool', tool: 'code-runner' }],
    };
    await expect(buildTeam(spec, { createModel: modelFactory('').createModel })).rejects.toMatchObject({
      code: 'MODEL_CONFIG',
      message: 'team "tools" has no model for its ranker: set "model" in the team file, or pass --model',
    });
  });
});
