/**
 * Weft's prompts for planning, verification and plan updates. Sections are wrapped in XML-style tags because
 * models follow them reliably and because the `sim:` model reads the same tags (`<task>`, `<output>`,
 * `<workflow>`, `<failed>`), which makes this file the prompt protocol between the engines and the models.
 */
import type { Workflow, WorkflowJson } from '../graph/workflow.js';

/** Keep prompts bounded: a parent's output beyond this is cut, with a note saying so. */
export const MAX_INPUT_CHARS = 12_000;

export function clip(text: string, limit = MAX_INPUT_CHARS): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n…[${text.length - limit} more characters cut]`;
}

export const PLANNER_SYSTEM = `You are Weft's planner. You turn a task into a workflow: a directed acyclic graph of subtasks that
separate agents will carry out, in parallel wherever the graph allows.

Principles:
- Modularity. Each subtask is self-contained, with one clear objective an agent can finish on its own given the
  outputs of the subtasks it depends on.
- Parallelism. Add a dependency only when a subtask truly needs another's output. Fewer dependencies mean more work
  runs at once and a failure spreads less.
- Roles. Name a small set of agent roles (for example "designer", "coder", "writer", "reviewer") and give each a
  short system prompt. Several subtasks may share a role.
- Files. When the task asks for files, say in each objective which file paths the subtask writes.
- Size. Usually 3 to 12 subtasks.

Answer with JSON only, in this shape:
{"roles": [{"name": "coder", "prompt": "You are a careful programmer..."}],
 "subtasks": [{"id": "t1", "objective": "...", "agent": "coder", "dependsOn": []}]}`;

/**
 * `teams`: the section of team-offer.ts listing agent teams the planner may use, or ''. `tools`: the section of
 * tool-offer.ts listing the tools roles may be given, or ''.
 */
export function planPrompt(task: string, teams = '', tools = ''): string {
  const sections = [teams, tools].filter((section) => section !== '').map((section) => `${section}\n\n`);
  return `<task>\n${task}\n</task>\n\n${sections.join('')}Plan this task as a workflow. Answer with the JSON object only.`;
}

export const AGENT_SYSTEM_SUFFIX = `

You are one agent in a team working on a larger task. Do only your own subtask, completely.
When you produce a file, write it as a fenced code block whose info string names its path, for example:
\`\`\`html path=index.html
...
\`\`\`
If you cannot proceed (an input you need is missing or wrong), answer with a first line starting
"CANNOT PROCEED:" followed by the reason.`;

export interface ParentOutput {
  readonly id: string;
  readonly objective: string;
  readonly output: string;
}

export function executePrompt(task: string, objective: string, parents: readonly ParentOutput[]): string {
  const inputs =
    parents.length === 0
      ? '<inputs>none: this subtask has no prerequisites</inputs>'
      : `<inputs>\n${parents
          .map((p) => `<input from="${p.id}" objective="${escapeAttribute(p.objective)}">\n${clip(p.output)}\n</input>`)
          .join('\n')}\n</inputs>`;
  return `<task>\n${task}\n</task>\n\n<objective>\n${objective}\n</objective>\n\n${inputs}\n\nCarry out the objective.`;
}

export const VERIFIER_SYSTEM = `You are Weft's verifier. You double-check one subtask's result against its objective and the overall task.
Be strict about the objective's explicit requirements and lenient about style.

Answer with JSON only: {"verdict": "accept" | "retry" | "replan", "reason": "..."}
- accept: the objective is met.
- retry: the result is wrong or incomplete, and running the same subtask again could fix it.
- replan: the plan itself must change (a missing prerequisite, a wrong decomposition, an input that is missing).

When the prompt lists the agent's tool calls (<tool-calls>), they are the evidence of what it did. Never accept an
output that claims what the calls do not show: the success of a call that failed, an action no call made, a value
no result holds. Say which call in the reason.`;

/**
 * `toolCalls`: the section of tool-evidence.ts listing the attempt's tool calls, for a role with tools; '' for a
 * role without.
 */
export function verifyPrompt(task: string, objective: string, output: string, toolCalls = ''): string {
  const evidence = toolCalls === '' ? '' : `${toolCalls}\n\n`;
  const question =
    toolCalls === ''
      ? 'Does the output meet the objective?'
      : 'Does the output meet the objective, and do the tool calls bear out everything it claims was done?';
  return `<task>\n${task}\n</task>\n\n<objective>\n${objective}\n</objective>\n\n<output>\n${clip(output)}\n</output>\n\n${evidence}${question} Answer with the JSON object only.`;
}

export const INSPECTOR_SYSTEM = `You are Weft's inspector. You revise a running workflow so that the task still gets done.
You may add, remove or modify subtasks, reassign them to other roles, and rewire dependencies. A completed
subtask whose objective you keep unchanged keeps its output; change its objective (or drop it) only if its
result is wrong. Subtasks listed as failed run again unless you remove them, so improve their objectives or add
the prerequisites they lacked.

Answer with JSON only. Answer {} when no change is needed. Otherwise give the whole revised workflow:
{"roles": [...optional new roles...], "subtasks": [{"id": "t1", "objective": "...", "agent": "...", "dependsOn": []}]}
Keep the ids of subtasks you keep. Roles of kind "team" are agent teams the user provided: you may give subtasks
to them, but not redefine them.`;

/**
 * The workflow without bulky outputs (docs/algorithms.md#plan-updates: the inspector does not need the `data` fields).
 */
export function workflowForPrompt(workflow: Workflow): WorkflowJson {
  return {
    task: workflow.task,
    roles: workflow.roles.map((r) => ({ name: r.name, prompt: r.prompt, kind: r.kind })),
    subtasks: workflow.subtasks.map((s) => ({
      id: s.id,
      objective: s.objective,
      agent: s.agent,
      dependsOn: [...s.dependsOn],
      status: s.status,
    })),
  };
}

export function updatePrompt(
  workflow: Workflow,
  failed: readonly { id: string; reason: string }[],
  completedOutputs: readonly ParentOutput[],
): string {
  const completed =
    completedOutputs.length === 0
      ? '<completed>none yet</completed>'
      : `<completed>\n${completedOutputs
          .map((p) => `<result id="${p.id}">\n${clip(p.output, 2_000)}\n</result>`)
          .join('\n')}\n</completed>`;
  const reasons = failed.map((f) => `- ${f.id}: ${f.reason}`).join('\n');
  return [
    `<task>\n${workflow.task}\n</task>`,
    `<workflow>\n${JSON.stringify(workflowForPrompt(workflow), null, 1)}\n</workflow>`,
    completed,
    `<failed>${failed.map((f) => f.id).join(', ')}</failed>`,
    failed.length > 0
      ? `<reasons>\n${reasons}\n</reasons>`
      : '<reasons>no failures; review the plan against the results so far</reasons>',
    'Revise the workflow if needed. Answer with the JSON object only ({} for no change).',
  ].join('\n\n');
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\n/g, ' ');
}
