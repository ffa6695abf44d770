/**
 * A runnable team from a team file: an LLM agent per llm role, a code runner per `code-runner` tool, and the
 * listwise ranker. Model specs resolve agent → team → command (`--model`); one model per distinct spec.
 * The ranker uses `rankerModel`, else the team's model, else the command's, else the first llm agent's own.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { WeftError, type LocatedIssue } from '../errors.js';
import { createCodeRunnerAgent, type CodeRunnerOptions } from './code-runner.js';
import { createLlmAgent } from './llm-agent.js';
import { createLlmRanker, type Ranker } from './llm-ranker.js';
import type { TeamAgent, TeamSpec } from './team.js';

export interface BuildTeamOptions {
  /** Makes a model from a spec string (e.g. `resolveModel`); called once per distinct spec. */
  readonly createModel: (spec: string) => Promise<ChatModel>;
  /** The command's `--model`: for agents and the ranker when the team file names none. */
  readonly defaultModel?: string;
  /** The ranker's model, when it should differ from the team's. */
  readonly rankerModel?: string;
  /** The team file, named in errors. */
  readonly file?: string;
  /** Limits of code-runner agents. */
  readonly codeRunner?: Omit<CodeRunnerOptions, 'name'>;
  /** Seeds the ranker's shuffle of the responses. */
  readonly seed?: number | string;
}

export interface BuiltTeam {
  /** In the team file's order. */
  readonly agents: TeamAgent[];
  readonly ranker: Ranker;
  /** The model id of each llm agent (tools have none). */
  readonly models: Record<string, string>;
  readonly rankerModel: string;
}

export async function buildTeam(spec: TeamSpec, options: BuildTeamOptions): Promise<BuiltTeam> {
  const where = options.file === undefined ? '' : ` (${options.file})`;
  const missing: LocatedIssue[] = [];
  spec.agents.forEach((agent, index) => {
    if (agent.kind === 'llm' && modelSpecOf(agent.model, spec, options) === undefined) {
      missing.push({
        ...(options.file === undefined ? {} : { file: options.file }),
        field: `agents[${index}].model`,
        message: `agent "${agent.name}" has no model`,
      });
    }
  });
  if (missing.length > 0) {
    const names = spec.agents
      .filter((agent) => agent.kind === 'llm' && modelSpecOf(agent.model, spec, options) === undefined)
      .map((agent) => `"${agent.name}"`);
    const who =
      names.length === 1
        ? `agent ${names[0]} of team "${spec.name}"${where} has`
        : `agents ${names.join(', ')} of team "${spec.name}"${where} have`;
    throw new WeftError('MODEL_CONFIG', `${who} no model: set "model" on the agent or the team, or pass --model`, {
      ...(options.file === undefined ? {} : { location: { file: options.file } }),
      issues: missing,
    });
  }

  const models = new Map<string, Promise<ChatModel>>();
  const modelFor = (modelSpec: string): Promise<ChatModel> => {
    let model = models.get(modelSpec);
    if (!model) {
      model = options.createModel(modelSpec);
      models.set(modelSpec, model);
    }
    return model;
  };

  const agents: TeamAgent[] = [];
  const modelIds: Record<string, string> = {};
  for (const agent of spec.agents) {
    if (agent.kind === 'tool') {
      // Parsing guarantees `tool`; code-runner is the only tool so far.
      agents.push(createCodeRunnerAgent({ ...options.codeRunner, name: agent.name }));
      continue;
    }
    const model = await modelFor(modelSpecOf(agent.model, spec, options)!);
    modelIds[agent.name] = model.id;
    agents.push(createLlmAgent({ name: agent.name, prompt: agent.prompt, model }));
  }

  const rankerSpec =
    options.rankerModel ??
    spec.model ??
    options.defaultModel ??
    spec.agents.find((a) => a.kind === 'llm' && a.model)?.model;
  if (rankerSpec === undefined) {
    throw new WeftError(
      'MODEL_CONFIG',
      `team "${spec.name}"${where} has no model for its ranker: set "model" in the team file, or pass --model`,
      {
        ...(options.file === undefined ? {} : { location: { file: options.file, field: 'model' } }),
      },
    );
  }
  const rankerModel = await modelFor(rankerSpec);
  return {
    agents,
    ranker: createLlmRanker(rankerModel, options.seed === undefined ? {} : { seed: options.seed }),
    models: modelIds,
    rankerModel: rankerModel.id,
  };
}

function modelSpecOf(agentModel: string | undefined, spec: TeamSpec, options: BuildTeamOptions): string | undefined {
  return agentModel ?? spec.model ?? options.defaultModel;
}
