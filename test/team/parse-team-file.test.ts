import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError, formatError, type LocatedIssue } from '../../src/errors.js';
import { TOOL_PROMPTS, loadTeamFile, parseTeamFile } from '../../src/team/parse-team-file.js';

function rejection(text: string, file = 'team.yaml'): WeftError {
  try {
    parseTeamFile(text, file);
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected the team file to be rejected');
}

function issuesOf(text: string, file = 'team.yaml'): readonly LocatedIssue[] {
  const error = rejection(text, file);
  expect(error.code).toBe('BAD_INPUT');
  return error.issues;
}

const debate = `name: debate
model: "sim:seed=5"
maxSteps: 4
reformAt: 3
keep: 2
answerKind: code
agents:
  - name: reasoner
    prompt: You reason step by step.
  - name: skeptic
    prompt: You check each step.
    model: openai:gpt-4o-mini
  - name: runner
    kind: tool
    tool: code-runner
`;

describe('parseTeamFile: valid files', () => {
  it('reads YAML with defaults: kind llm, a tool prompt from the tool', () => {
    expect(parseTeamFile(debate, 'team.yaml')).toStrictEqual({
      name: 'debate',
      model: 'sim:seed=5',
      maxSteps: 4,
      reformAt: 3,
      keep: 2,
      answerKind: 'code',
      agents: [
        { name: 'reasoner', prompt: 'You reason step by step.', kind: 'llm' },
        { name: 'skeptic', prompt: 'You check each step.', kind: 'llm', model: 'openai:gpt-4o-mini' },
        { name: 'runner', prompt: TOOL_PROMPTS['code-runner'], kind: 'tool', tool: 'code-runner' },
      ],
    });
  });

  it('reads the same team from JSON, by extension or by its opening brace', () => {
    const json = JSON.stringify({
      name: 'debate',
      model: 'sim:seed=5',
      maxSteps: 4,
      reformAt: 3,
      keep: 2,
      answerKind: 'code',
      agents: [
        { name: 'reasoner', prompt: 'You reason step by step.' },
        { name: 'skeptic', prompt: 'You check each step.', model: 'openai:gpt-4o-mini' },
        { name: 'runner', kind: 'tool', tool: 'code-runner' },
      ],
    });
    expect(parseTeamFile(json, 'team.json')).toStrictEqual(parseTeamFile(debate, 'team.yaml'));
    expect(parseTeamFile(json)).toStrictEqual(parseTeamFile(debate));
  });

  it('leaves optional settings out when the file does not set them', () => {
    const spec = parseTeamFile('name: solo\nagents:\n  - name: a\n    prompt: p\n');
    expect(spec).toStrictEqual({ name: 'solo', agents: [{ name: 'a', prompt: 'p', kind: 'llm' }] });
  });

  it('accepts any keep and maxSteps when reformAt: 0 turns the reformation off', () => {
    const spec = parseTeamFile(
      'name: t\nkeep: 5\nmaxSteps: 2\nreformAt: 0\nagents:\n  - name: a\n    prompt: p\n  - name: b\n    prompt: q\n',
    );
    expect(spec).toMatchObject({ keep: 5, maxSteps: 2, reformAt: 0 });
  });
});

describe('parseTeamFile: bad files give one BAD_INPUT with every problem located', () => {
  it('reads stopCheck, suggests it for stop_check, and names a bad value with its line and field', () => {
    const agents = 'agents:\n  - name: a\n    prompt: p\n';
    expect(parseTeamFile(`name: t\nstopCheck: layer\n${agents}`, 'team.yaml').stopCheck).toBe('layer');
    expect(parseTeamFile(`name: t\nstopCheck: answer\n${agents}`, 'team.yaml').stopCheck).toBe('answer');
    expect(issuesOf(`name: t\nstop_check: answer\n${agents}`)[0]!.message).toContain('stopCheck');
    expect(parseTeamFile(`name: t\n${agents}`, 'team.yaml').stopCheck).toBeUndefined();
    const [issue] = issuesOf(`name: t\nstopCheck: never\n${agents}`);
    expect(issue).toMatchObject({ line: 2, field: 'stopCheck', message: 'must be one of: answer, layer' });
  });

  it('names an unknown field with its line, column and field, and suggests the nearest known one', () => {
    const issues = issuesOf('name: t\nmaxStep: 3\nagents:\n  - name: a\n    promt: You are careful.\n');
    expect(issues).toHaveLength(3);
    expect(issues[0]).toMatchObject({ file: 'team.yaml', line: 2, column: 1, field: 'maxStep' });
    expect(issues[0]!.message).toMatch(
      /^unknown field "maxStep" \(did you mean "maxSteps"\?\); allowed fields: name, description, model, maxSteps/,
    );
    expect(issues[1]).toMatchObject({ file: 'team.yaml', line: 4, field: 'agents[0].prompt' });
    expect(issues[1]!.message).toBe('agent "a" has no prompt; an llm agent needs one (its role)');
    expect(issues[2]).toMatchObject({ file: 'team.yaml', line: 5, column: 5, field: 'agents[0].promt' });
    expect(issues[2]!.message).toMatch(/^unknown field "promt" \(did you mean "prompt"\?\)/);
  });

  it('maps common words for a field to it (role → prompt, members → agents)', () => {
    const issues = issuesOf('name: t\nmembers: []\nagents:\n  - name: a\n    role: Judge.\n');
    const byField = Object.fromEntries(issues.map((issue) => [issue.field, issue.message]));
    expect(byField.members).toMatch(/did you mean "agents"/);
    expect(byField['agents[0].role']).toMatch(/did you mean "prompt"/);
  });

  it('gives no suggestion when nothing is close', () => {
    const [issue] = issuesOf('name: t\nzzzzzzzz: 1\nagents:\n  - name: a\n    prompt: p\n');
    expect(issue!.message).toBe(
      'unknown field "zzzzzzzz"; allowed fields: name, description, model, maxSteps, reformAt, keep, answerKind, stopCheck, agents',
    );
  });

  it('rejects an llm agent with an empty prompt, a tool agent without a tool, duplicate names, and tool on an llm agent', () => {
    const issues = issuesOf(
      [
        'name: t',
        'answerKind: code',
        'agents:',
        '  - name: a',
        '    prompt: "   "',
        '  - name: runner',
        '    kind: tool',
        '  - name: a',
        '    prompt: again',
        '  - name: c',
        '    prompt: p',
        '    tool: code-runner',
      ].join('\n'),
    );
    expect(issues.map((issue) => [issue.line, issue.field, issue.message])).toStrictEqual([
      [5, 'agents[0].prompt', 'agent "a" has an empty prompt; an llm agent needs one (its role)'],
      [6, 'agents[1].tool', 'agent "runner" is a tool agent without "tool"; one of: code-runner'],
      [8, 'agents[2].name', 'duplicate agent name "a" (also agents[0])'],
      [12, 'agents[3].tool', 'agent "c" is an llm agent; "tool" is only for agents with kind: tool'],
    ]);
  });

  it('rejects a team without agents, steps below 1, keep 0 and unknown kinds and tools', () => {
    const none = issuesOf('name: t\nagents: []\n');
    expect(none).toStrictEqual([
      { file: 'team.yaml', line: 2, column: 1, field: 'agents', message: 'must list at least one agent' },
    ]);
    const issues = issuesOf(
      'name: t\nmaxSteps: 0\nkeep: 0\nreformAt: 1.5\nanswerKind: essay\nagents:\n  - name: a\n    kind: human\n    prompt: p\n  - name: b\n    kind: tool\n    tool: compiler\n',
    );
    expect(issues.map((issue) => [issue.field, issue.message])).toStrictEqual([
      ['maxSteps', 'must be at least 1'],
      ['keep', 'must be at least 1'],
      ['reformAt', 'must be a whole number'],
      ['answerKind', 'must be one of: choice, exact, text, code'],
      ['agents[0].kind', 'must be "llm" or "tool"'],
      ['agents[1].tool', 'must be one of: code-runner'],
    ]);
  });

  it('locates a bad model spec, a provider typo or a sim option typo, at its line and field', () => {
    const issues = issuesOf(
      'name: t\nmodel: "gpt-4o"\nagents:\n  - name: a\n    prompt: p\n    model: "bogus:x"\n  - name: b\n    prompt: q\n    model: "sim:accuracy=0.7,folow=0.3"\n',
    );
    expect(issues.map((issue) => [issue.line, issue.column, issue.field])).toStrictEqual([
      [2, 1, 'model'],
      [6, 5, 'agents[0].model'],
      [9, 5, 'agents[1].model'],
    ]);
    expect(issues[0]!.message).toMatch(
      /^invalid model spec "gpt-4o": it has no provider prefix \(did you mean "openai:gpt-4o"\?\); valid forms: openai:<model>, /,
    );
    expect(issues[1]!.message).toMatch(/^invalid model spec "bogus:x": unknown provider "bogus"; valid forms: /);
    expect(issues[2]!.message).toMatch(
      /^invalid model spec "sim:accuracy=0.7,folow=0.3": bad sim option "folow": unknown option \(known: .*follow/,
    );
    expect(formatError(rejection('name: t\nagents:\n  - name: a\n    prompt: p\n    model: "bogus:x"\n'))).toContain(
      'team.yaml:5:5 agents[0].model: invalid model spec "bogus:x"',
    );
  });

  it('needs an llm agent, and tool agents only with answerKind: code', () => {
    const tools = issuesOf('name: t\nanswerKind: code\nagents:\n  - name: r\n    kind: tool\n    tool: code-runner\n');
    expect(tools).toMatchObject([
      { line: 3, field: 'agents', message: expect.stringMatching(/^the team has no llm agent/) },
    ]);
    const exact = issuesOf(
      'name: t\nanswerKind: exact\nagents:\n  - name: a\n    prompt: p\n  - name: r\n    kind: tool\n    tool: code-runner\n',
    );
    expect(exact.map((issue) => [issue.line, issue.field, issue.message])).toStrictEqual([
      [
        7,
        'agents[1].kind',
        'agent "r" is a code-runner agent, which only answers code, but the team has answerKind: exact: set answerKind: code, or remove the agent',
      ],
    ]);
    expect(
      issuesOf('name: t\nagents:\n  - name: a\n    prompt: p\n  - name: r\n    kind: tool\n    tool: code-runner\n')[0]!
        .message,
    ).toContain('but the team has no answerKind');
  });

  it('refuses settings that make the reformation a silent no-op, pointing at reformAt: 0', () => {
    const issues = issuesOf(
      'name: t\nmaxSteps: 3\nreformAt: 3\nkeep: 2\nagents:\n  - name: a\n    prompt: p\n  - name: b\n    prompt: q\n',
    );
    expect(issues.map((issue) => [issue.line, issue.field, issue.message])).toStrictEqual([
      [
        3,
        'reformAt',
        'reformAt: 3 is not before the last step (maxSteps: 3), so the reformation would never run; use a reformAt below 3, or reformAt: 0 to turn the reformation off',
      ],
      [
        4,
        'keep',
        'keep: 2 keeps all 2 agents, so the reformation would drop nobody; use a keep below 2, or reformAt: 0 to turn the reformation off',
      ],
    ]);
    // Only reformAt and maxSteps given together are compared: the defaults may differ by answer kind.
    expect(parseTeamFile('name: t\nreformAt: 5\nagents:\n  - name: a\n    prompt: p\n').reformAt).toBe(5);
  });

  it('says what is missing or of the wrong type', () => {
    const issues = issuesOf('agents:\n  - prompt: p\n    model: 3\n');
    expect(issues.map((issue) => [issue.field, issue.message])).toStrictEqual([
      ['name', 'missing required field "name"'],
      ['agents[0].name', 'missing required field "name"'],
      ['agents[0].model', 'expected a string, got a number'],
    ]);
  });

  it('locates YAML and JSON syntax errors', () => {
    const yaml = issuesOf('name: t\nagents:\n  - name: a: b\n    prompt: p\n');
    expect(yaml).toStrictEqual([
      {
        file: 'team.yaml',
        line: 3,
        column: 11,
        message: 'invalid YAML: Nested mappings are not allowed in compact mappings',
      },
    ]);
    const json = issuesOf('{\n  "name": "t",\n  "agents": [,]\n}', 'team.json');
    expect(json).toStrictEqual([
      { file: 'team.json', line: 3, column: 14, message: 'invalid JSON: expected a value, unexpected character ","' },
    ]);
  });

  it('rejects an empty file and a file that is not a mapping', () => {
    expect(issuesOf('')[0]!.message).toBe('the team file is empty');
    expect(issuesOf('- a\n- b\n')[0]!.message).toBe('expected an object, got an array');
  });

  it('formats as one message with every problem on its own line', () => {
    const text = formatError(rejection('name: t\nagents:\n  - name: a\n  - name: a\n    prompt: p\n'));
    expect(text).toBe(
      [
        'team.yaml: invalid team file: 2 problems',
        '  - team.yaml:3:5 agents[0].prompt: agent "a" has no prompt; an llm agent needs one (its role)',
        '  - team.yaml:4:5 agents[1].name: duplicate agent name "a" (also agents[0])',
      ].join('\n'),
    );
  });
});

describe('loadTeamFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-team-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and validates a file, naming it in problems', async () => {
    const good = join(dir, 'good.yaml');
    await writeFile(good, debate);
    expect((await loadTeamFile(good)).agents.map((agent) => agent.name)).toStrictEqual([
      'reasoner',
      'skeptic',
      'runner',
    ]);
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'name: t\nagents:\n  - name: a\n');
    await expect(loadTeamFile(bad)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      issues: [{ file: bad, line: 3, field: 'agents[0].prompt' }],
    });
  });

  it('refuses a bad model spec before any run (the workflow pre-run check loads files this way)', async () => {
    const bad = join(dir, 'bad-model.yaml');
    await writeFile(
      bad,
      'name: t\nmodel: "sim:seed=1"\nagents:\n  - name: a\n    prompt: p\n    model: "sim:folow=0.3"\n',
    );
    await expect(loadTeamFile(bad)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      issues: [{ file: bad, line: 6, column: 5, field: 'agents[0].model' }],
    });
  });

  it('reports a missing file as BAD_INPUT naming it', async () => {
    const missing = join(dir, 'nope.yaml');
    await expect(loadTeamFile(missing)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: 'cannot read the team file: no such file',
      location: { file: missing },
    });
  });
});

describe('the example team files', () => {
  it('parse: a 4-agent debate, a pool of 6–7 and coders with a code runner', async () => {
    const debate = await loadTeamFile('examples/teams/debate.yaml');
    expect(debate.agents.map((agent) => agent.kind)).toStrictEqual(['llm', 'llm', 'llm', 'llm']);
    const pool = await loadTeamFile('examples/teams/pool.yaml');
    expect(pool.agents.length).toBeGreaterThanOrEqual(6);
    expect(pool.agents.length).toBeLessThanOrEqual(7);
    const coders = await loadTeamFile('examples/teams/coders.yaml');
    expect(coders.answerKind).toBe('code');
    expect(coders.agents.filter((agent) => agent.tool === 'code-runner')).toHaveLength(1);
  });
});
