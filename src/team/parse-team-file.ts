/**
 * Team files (`team.yaml` or JSON, docs/algorithms.md#dylan-teams): validated into a `TeamSpec`, or one BAD_INPUT error
 * listing every problem, each located by file, line, column and field.
 *
 * Decisions:
 * - A tool agent may leave out `prompt`: it then gets the tool's own description (what the other agents are
 *   told it does). An llm agent's prompt is its role and must not be empty.
 * - Model specs (the team's and each agent's) are parsed here, sim options included, so a typo is reported at
 *   its line before any run (`weft team`, or a workflow's pre-run check), not later as a `--model` problem.
 * - A team needs an llm agent (tools answer nothing on their own), and tool agents need `answerKind: code`:
 *   a code runner only answers code, and elsewhere it would count in every consensus without answering.
 * - A `keep` not smaller than the number of agents, or a `reformAt` not before `maxSteps` (both given), would make
 *   the reformation a silent no-op: refused, pointing at `reformAt: 0`. The engine still skips such a
 *   reformation at run time, so an optimised subset smaller than `keep` runs.
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { WeftError, isWeftError, type LocatedIssue } from '../errors.js';
import {
  boundedString,
  MAX_NAME_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_TEAM_AGENTS,
  nonEmptyText,
  tooManyMessage,
} from '../graph/limits.js';
import { checkModelSpec, modelSpecForms, parseModelSpec } from '../llm/model-spec.js';
import { describeTypeMismatch, valueAt } from '../text/describe-value.js';
import { closestWord } from '../text/edit-distance.js';
import { formatFieldPath, type FieldPath, type PathIssue, type PositionOf } from '../text/source-locator.js';
import { readStructuredSource } from '../text/read-structured-source.js';
import { STOP_CHECKS, type TeamAgentSpec, type TeamSpec, type TeamToolName } from './team.js';

export const TEAM_TOOLS = ['code-runner'] as const satisfies readonly TeamToolName[];

/** What a tool agent without a prompt is shown as to the other agents. */
export const TOOL_PROMPTS: Readonly<Record<TeamToolName, string>> = {
  'code-runner':
    'A code runner: it runs each candidate solution against the tests in a sandbox and reports how many pass, then answers with the best-tested code.',
};

// Sizes: graph/limits.ts.
const text = nonEmptyText;
const count = (min: number) =>
  z
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` });

const agentSchema = z.strictObject({
  name: text(MAX_NAME_LENGTH),
  // Required for llm agents; checked with the other rules so every problem is reported at once.
  prompt: boundedString(MAX_PROMPT_LENGTH).optional(),
  kind: z.enum(['llm', 'tool'], { error: 'must be "llm" or "tool"' }).default('llm'),
  model: text().optional(),
  tool: z.enum(TEAM_TOOLS, { error: `must be one of: ${TEAM_TOOLS.join(', ')}` }).optional(),
});

const teamSchema = z.strictObject({
  name: text(MAX_NAME_LENGTH),
  description: text(MAX_PROMPT_LENGTH).optional(),
  model: text().optional(),
  maxSteps: count(1).optional(),
  reformAt: count(0).optional(),
  keep: count(1).optional(),
  answerKind: z
    .enum(['choice', 'exact', 'text', 'code'], { error: 'must be one of: choice, exact, text, code' })
    .optional(),
  stopCheck: z.enum(STOP_CHECKS, { error: `must be one of: ${STOP_CHECKS.join(', ')}` }).optional(),
  agents: z
    .array(agentSchema)
    .min(1, { error: 'must list at least one agent' })
    .max(MAX_TEAM_AGENTS, { error: (issue) => tooManyMessage(MAX_TEAM_AGENTS, 'agents', issue.input) }),
});

type TeamInput = z.output<typeof teamSchema>;

const TEAM_FIELDS = Object.keys(teamSchema.shape);
const AGENT_FIELDS = Object.keys(agentSchema.shape);

/** Words people write for a field, mapped to the field (lower case). */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  role: 'prompt',
  system: 'prompt',
  instructions: 'prompt',
  type: 'kind',
  members: 'agents',
  roles: 'agents',
  steps: 'maxSteps',
  max_steps: 'maxSteps',
  reform_at: 'reformAt',
  top_k: 'keep',
  k: 'keep',
  answer_kind: 'answerKind',
  stop_check: 'stopCheck',
  about: 'description',
  summary: 'description',
  kind: 'answerKind',
};

/**
 * Validates a team file's text. JSON when the file ends in `.json` or the text starts with `{`, else YAML.
 * Throws one `WeftError('BAD_INPUT')` whose `issues` locate every problem.
 */
export function parseTeamFile(source: string, file?: string): TeamSpec {
  const read = readStructuredSource(source, file);
  const issues = 'issues' in read ? read.issues : validate(read.value, read.positionOf, file);
  if (issues.length === 0) return buildSpec(teamSchema.parse((read as { value: unknown }).value));
  const n = issues.length;
  throw new WeftError('BAD_INPUT', `invalid team file: ${n} ${n === 1 ? 'problem' : 'problems'}`, {
    ...(file === undefined ? {} : { location: { file } }),
    issues,
  });
}

/** The largest team file read (a team is a few agents: this is far beyond any real one). */
export const MAX_TEAM_FILE_BYTES = 1_000_000;

/** Reads and validates a team file; a file that cannot be read is a BAD_INPUT naming it. */
export async function loadTeamFile(path: string): Promise<TeamSpec> {
  let source: string;
  try {
    // Only a bounded regular file: weft mcp's client names it, and /dev/zero or a pipe nobody writes would never end.
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    if (!info.isFile()) throw new Error('it is not a regular file');
    if (info.size > MAX_TEAM_FILE_BYTES) throw new Error(`it is ${info.size} bytes; at most ${MAX_TEAM_FILE_BYTES}`);
    source = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new WeftError('BAD_INPUT', `cannot read the team file: ${reason}`, {
      location: { file: path },
      cause: error,
    });
  }
  return parseTeamFile(source, path);
}

function validate(value: unknown, positionOf: PositionOf, file: string | undefined): LocatedIssue[] {
  if (value === null || value === undefined)
    return [locate({ path: [], message: 'the team file is empty' }, positionOf, file)];
  const parsed = teamSchema.safeParse(value);
  const pathIssues = [
    ...(parsed.success ? [] : parsed.error.issues.flatMap((issue) => describeSchemaIssue(issue, value))),
    ...checkAgents(value),
    ...checkModels(value),
    ...(parsed.success ? checkTeam(parsed.data) : []),
  ];
  const issues = pathIssues.map((issue) => locate(issue, positionOf, file));
  // Source order reads best; issues without a line keep the order they were found in.
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

function locate({ path, message }: PathIssue, positionOf: PositionOf, file: string | undefined): LocatedIssue {
  const position = positionOf(path);
  const field = formatFieldPath(path);
  return {
    ...(file === undefined ? {} : { file }),
    ...(position ?? {}),
    ...(field === undefined ? {} : { field }),
    message,
  };
}

function describeSchemaIssue(issue: z.core.$ZodIssue, root: unknown): PathIssue[] {
  const path: FieldPath = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  if (issue.code === 'unrecognized_keys') {
    const allowed = path.length === 0 ? TEAM_FIELDS : AGENT_FIELDS;
    return issue.keys.map((key) => ({ path: [...path, key], message: unknownFieldMessage(key, allowed) }));
  }
  if (issue.code === 'invalid_type' && issue.expected !== 'int') {
    return [{ path, message: describeTypeMismatch(valueAt(root, path), path, issue.expected) }];
  }
  return [{ path, message: issue.message }];
}

/** `unknown field "promt" (did you mean "prompt"?); allowed fields: …` */
function unknownFieldMessage(key: string, allowed: readonly string[]): string {
  const byLower = new Map(allowed.map((field) => [field.toLowerCase(), field]));
  const aliases = Object.fromEntries(
    Object.entries(FIELD_ALIASES)
      .filter(([, field]) => allowed.includes(field))
      .map(([alias, field]) => [alias, field.toLowerCase()]),
  );
  const guess = closestWord(key, [...byLower.keys()], aliases);
  const suggestion = guess === undefined ? '' : ` (did you mean "${byLower.get(guess)}"?)`;
  return `unknown field "${key}"${suggestion}; allowed fields: ${allowed.join(', ')}`;
}

/** The rules that relate fields: prompts of llm agents, `tool` for tool agents, unique names. */
function checkAgents(root: unknown): PathIssue[] {
  const agents = valueAt(root, ['agents']);
  if (!Array.isArray(agents)) return [];
  const issues: PathIssue[] = [];
  const firstIndex = new Map<string, number>();
  agents.forEach((agent: unknown, index) => {
    if (typeof agent !== 'object' || agent === null || Array.isArray(agent)) return;
    const record = agent as Record<string, unknown>;
    const label =
      typeof record.name === 'string' && record.name.trim() !== '' ? `agent "${record.name}"` : `agent ${index + 1}`;
    const kind = record.kind ?? 'llm';
    if (kind === 'llm') {
      // A prompt of the wrong type (null, a number) is already reported by the schema.
      if (record.prompt === undefined) {
        issues.push({
          path: ['agents', index, 'prompt'],
          message: `${label} has no prompt; an llm agent needs one (its role)`,
        });
      } else if (typeof record.prompt === 'string' && record.prompt.trim() === '') {
        issues.push({
          path: ['agents', index, 'prompt'],
          message: `${label} has an empty prompt; an llm agent needs one (its role)`,
        });
      }
      if (record.tool !== undefined) {
        issues.push({
          path: ['agents', index, 'tool'],
          message: `${label} is an llm agent; "tool" is only for agents with kind: tool`,
        });
      }
    } else if (kind === 'tool' && record.tool === undefined) {
      issues.push({
        path: ['agents', index, 'tool'],
        message: `${label} is a tool agent without "tool"; one of: ${TEAM_TOOLS.join(', ')}`,
      });
    }
    if (typeof record.name === 'string' && record.name.trim() !== '') {
      const first = firstIndex.get(record.name);
      if (first === undefined) firstIndex.set(record.name, index);
      else
        issues.push({
          path: ['agents', index, 'name'],
          message: `duplicate agent name "${record.name}" (also agents[${first}])`,
        });
    }
  });
  return issues;
}

/** Every `model` in the file parses as a model spec (sim options too). Wrong types are the schema's to report. */
function checkModels(root: unknown): PathIssue[] {
  const issues: PathIssue[] = [];
  const check = (path: FieldPath, spec: unknown): void => {
    if (typeof spec !== 'string' || spec.trim() === '') return;
    const problem = modelSpecProblem(spec);
    if (problem !== undefined) issues.push({ path, message: problem });
  };
  check(['model'], valueAt(root, ['model']));
  const agents = valueAt(root, ['agents']);
  if (Array.isArray(agents))
    agents.forEach((_agent: unknown, index) =>
      check(['agents', index, 'model'], valueAt(root, ['agents', index, 'model'])),
    );
  return issues;
}

/** Why a model spec is invalid, or undefined when it is valid. */
export function modelSpecProblem(spec: string): string | undefined {
  const forms = `valid forms: ${modelSpecForms()
    .map((form) => form.split(/\s+/)[0])
    .join(', ')}`;
  let problem: string | undefined;
  try {
    const parsed = parseModelSpec(spec, (text) => {
      problem = `${text}; ${forms}`;
      throw new Error(text);
    });
    checkModelSpec(parsed);
    return undefined;
  } catch (error) {
    if (problem === undefined && !isWeftError(error)) throw error;
    return `invalid model spec ${JSON.stringify(spec)}: ${problem ?? (error as Error).message}`;
  }
}

/** The rules that make a team able to work at all (on a file the schema accepted). */
function checkTeam(team: TeamInput): PathIssue[] {
  const issues: PathIssue[] = [];
  if (!team.agents.some((agent) => agent.kind === 'llm')) {
    issues.push({
      path: ['agents'],
      message:
        'the team has no llm agent: tool agents only check the answers of llm agents, so add at least one agent with a prompt',
    });
  }
  if (team.answerKind !== 'code') {
    const kind = team.answerKind === undefined ? 'no answerKind' : `answerKind: ${team.answerKind}`;
    team.agents.forEach((agent, index) => {
      if (agent.kind !== 'tool') return;
      issues.push({
        path: ['agents', index, 'kind'],
        message: `agent "${agent.name}" is a ${agent.tool ?? 'tool'} agent, which only answers code, but the team has ${kind}: set answerKind: code, or remove the agent`,
      });
    });
  }
  // reformAt: 0 turns the reformation off, and `keep` with it.
  if (team.reformAt !== 0) {
    const n = team.agents.length;
    if (team.keep !== undefined && team.keep >= n) {
      issues.push({
        path: ['keep'],
        message: `keep: ${team.keep} keeps all ${n} ${n === 1 ? 'agent' : 'agents'}, so the reformation would drop nobody; use a keep below ${n}, or reformAt: 0 to turn the reformation off`,
      });
    }
    if (team.reformAt !== undefined && team.maxSteps !== undefined && team.reformAt >= team.maxSteps) {
      issues.push({
        path: ['reformAt'],
        message: `reformAt: ${team.reformAt} is not before the last step (maxSteps: ${team.maxSteps}), so the reformation would never run; use a reformAt below ${team.maxSteps}, or reformAt: 0 to turn the reformation off`,
      });
    }
  }
  return issues;
}

function buildSpec(input: TeamInput): TeamSpec {
  const agents: TeamAgentSpec[] = input.agents.map((agent) => ({
    name: agent.name,
    prompt: agent.prompt?.trim() ? agent.prompt : agent.tool ? TOOL_PROMPTS[agent.tool] : '',
    kind: agent.kind,
    ...(agent.model === undefined ? {} : { model: agent.model }),
    ...(agent.tool === undefined ? {} : { tool: agent.tool }),
  }));
  return {
    name: input.name,
    ...(input.description === undefined ? {} : { description: input.description.trim() }),
    agents,
    ...(input.model === undefined ? {} : { model: input.model }),
    ...(input.maxSteps === undefined ? {} : { maxSteps: input.maxSteps }),
    ...(input.reformAt === undefined ? {} : { reformAt: input.reformAt }),
    ...(input.keep === undefined ? {} : { keep: input.keep }),
    ...(input.answerKind === undefined ? {} : { answerKind: input.answerKind }),
    ...(input.stopCheck === undefined ? {} : { stopCheck: input.stopCheck }),
  };
}
