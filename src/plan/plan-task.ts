/**
 * Flow's planner (docs/algorithms.md#planning): K candidate workflows generated concurrently, the most parallel one
 * chosen, ties broken by the lowest dependency complexity.
 */
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { parseWorkflow, pickBest, workflowMetrics } from '../graph/index.js';
import type { Workflow, WorkflowJson } from '../graph/workflow.js';
import type { ChatModel } from '../llm/chat-model.js';
import { generateStructured } from '../llm/structured-output.js';
import { planAnswerJsonSchema } from './answer-schemas.js';
import { rethrowFatal } from './rethrow-fatal.js';
import { planAnswerSchema, type PlanAnswer } from './plan-schemas.js';
import { plannerSystem, planPrompt } from './prompts.js';
import { checkTeamOffers, teamsPromptSection, type TeamOffer } from './team-offer.js';
import { toolsPromptSection, withOfferedTools, type ToolOffer } from './tool-offer.js';
import { RUN_DEFAULTS } from '../run-defaults.js';

export interface PlanCandidate {
  readonly index: number;
  readonly workflow?: Workflow;
  readonly metrics?: ReturnType<typeof workflowMetrics>;
  /** Why the candidate is unusable. */
  readonly error?: string;
}

export interface PlanResult {
  readonly candidates: readonly PlanCandidate[];
  readonly chosenIndex: number;
  readonly workflow: Workflow;
}

export interface PlanOptions {
  readonly task: string;
  readonly model: ChatModel;
  /** K, the number of candidates (default 3). */
  readonly candidates?: number;
  /** Agent teams the planner may give subtasks to (team-offer.ts). */
  readonly teams?: readonly TeamOffer[];
  /** Tools the planner may give roles (tool-offer.ts); without any, roles it gives tools are refused. */
  readonly tools?: readonly ToolOffer[];
  /**
   * The authors' scope rules (docs/algorithms.md#prompt-scope): implementation subtasks only, each with an output
   * format. Default true.
   */
  readonly scope?: boolean;
  readonly signal?: AbortSignal;
}

export async function planTask(options: PlanOptions): Promise<PlanResult> {
  const count = options.candidates ?? RUN_DEFAULTS.candidates;
  const teams = options.teams ?? [];
  checkTeamOffers(teams);
  const tools = options.tools ?? [];
  const schema = withOfferedTools(planAnswerSchema, tools);
  integerOption(count, 'candidates', { min: 1 });
  const settled = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      generateStructured(
        options.model,
        {
          system: plannerSystem(options.scope ?? true),
          messages: [
            { role: 'user', content: planPrompt(options.task, teamsPromptSection(teams), toolsPromptSection(tools)) },
          ],
          json: { name: 'plan', schema: planAnswerJsonSchema },
          // Diversity between candidates comes from sampling temperature on real models.
          temperature: count > 1 ? 0.8 : 0.2,
          tag: { purpose: 'plan', key: 'plan', attempt: index + 1 },
        },
        schema,
        { signal: options.signal },
      ),
    ),
  );
  options.signal?.throwIfAborted();
  rethrowFatal(settled);
  const candidates: PlanCandidate[] = settled.map((outcome, index) => {
    if (outcome.status === 'rejected') return { index, error: errorText(outcome.reason) };
    return candidateFromAnswer(index, options.task, outcome.value.value, teams);
  });
  return choose(candidates);
}

/** Picks among candidates by docs/algorithms.md#planning; throws when none is usable. */
export function choose(candidates: readonly PlanCandidate[]): PlanResult {
  const usable = candidates.filter((c): c is PlanCandidate & { workflow: Workflow } => c.workflow !== undefined);
  if (usable.length === 0) {
    const reasons = candidates.map((c) => `candidate ${c.index + 1}: ${c.error ?? 'unusable'}`).join('; ');
    throw new WeftError('PARSE', `No usable plan among ${candidates.length} candidate(s): ${reasons}`);
  }
  const best = usable[pickBest(usable.map((c) => c.workflow))]!;
  return { candidates, chosenIndex: best.index, workflow: best.workflow };
}

export function candidateFromAnswer(
  index: number,
  task: string,
  answer: PlanAnswer,
  teams: readonly TeamOffer[] = [],
): PlanCandidate {
  const json = answerToJson(task, answer, teams);
  const parsed = parseWorkflow(json);
  if (!parsed.ok) {
    return { index, error: parsed.issues.map((issue) => `${issue.field ?? ''} ${issue.message}`.trim()).join('; ') };
  }
  return { index, workflow: parsed.workflow, metrics: workflowMetrics(parsed.workflow) };
}

/**
 * Models often name an agent without declaring its role; that is worth a default prompt, not a rejected plan.
 * (User-written plan files stay strict: they go through `parseWorkflow` directly.)
 * A subtask whose agent is an offered team's name runs through that team, whatever role the model declared under
 * that name. A team role the model declares itself is not honoured (it would name a file the user never gave):
 * it becomes an ordinary agent with its prompt. Offered teams the plan does not use are listed too, so that the
 * inspector sees them among the workflow's roles.
 */
export function answerToJson(
  task: string,
  answer: Pick<PlanAnswer, 'roles' | 'subtasks'>,
  teams: readonly TeamOffer[] = [],
): WorkflowJson {
  const offered = new Map(teams.map((team) => [team.name, team]));
  const roles: NonNullable<WorkflowJson['roles']> = [];
  const declared = new Set<string>();
  for (const role of answer.roles ?? []) {
    if (offered.has(role.name)) continue;
    declared.add(role.name);
    roles.push({
      name: role.name,
      prompt: role.prompt,
      kind: 'llm',
      ...(role.tools && role.tools.length > 0 ? { tools: [...new Set(role.tools)] } : {}),
    });
  }
  for (const team of teams) roles.push({ name: team.name, prompt: team.description, kind: 'team', team: team.file });
  for (const subtask of answer.subtasks) {
    if (!declared.has(subtask.agent) && !offered.has(subtask.agent)) {
      declared.add(subtask.agent);
      roles.push({ name: subtask.agent, prompt: `You are the ${subtask.agent}.`, kind: 'llm' });
    }
  }
  return {
    task,
    roles,
    subtasks: answer.subtasks.map((s) => ({
      id: s.id,
      objective: s.objective,
      agent: s.agent,
      dependsOn: [...s.dependsOn],
      ...(s.outputFormat !== undefined ? { outputFormat: s.outputFormat } : {}),
    })),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
