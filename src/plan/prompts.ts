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
 * The planner's scope rules (docs/algorithms.md#prompt-scope), restating the Flow authors' planning prompt: subtasks
 * build the deliverable, because checking and correcting are the verifier's and the retries' work, and each
 * subtask names the form its result takes.
 */
export const PLANNER_SCOPE_RULES = `

Scope:
- Every subtask produces part of the deliverable (code, text, data, a design). Do not plan subtasks that only
  test, debug, review, deploy or monitor, nor separate planning or analysis phases: each result is checked and,
  if wrong, redone by the system itself.
- Keep integration simple: one subtask that puts parts together, not a chain of them.
- Give each subtask an "outputFormat": the form its result takes (for example "Python code", "Markdown",
  "JSON", "HTML file index.html", "plain text").
Then each subtask reads: {"id": "t1", "objective": "...", "agent": "coder", "dependsOn": [], "outputFormat": "Python code"}`;

/** The planner's system prompt, with the scope rules unless `scope` is false. */
export function plannerSystem(scope = true): string {
  return scope ? `${PLANNER_SYSTEM}${PLANNER_SCOPE_RULES}` : PLANNER_SYSTEM;
}

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

/** One earlier attempt at a subtask that was not accepted, and why (docs/algorithms.md#retries-that-learn). */
export interface EarlierAttempt {
  readonly attempt: number;
  /** The verifier's verdict, or `blocked` when the agent said it cannot proceed. */
  readonly verdict: 'retry' | 'replan' | 'blocked';
  /** What the attempt produced, already cut to MAX_EARLIER_OUTPUT_CHARS. */
  readonly output: string;
  readonly reason: string;
}

/** What an attempt is told besides its objective and inputs; every part optional (docs/algorithms.md#execution). */
export interface ExecuteContext {
  /** The latest earlier attempts, oldest first (at most MAX_EARLIER_ATTEMPTS). */
  readonly earlier?: readonly EarlierAttempt[];
  /** How many attempts before `earlier` were left out. */
  readonly earlierLeftOut?: number;
  /** The subtasks that take this one's output as an input. */
  readonly neededBy?: readonly { readonly id: string; readonly objective: string }[];
  /** The form the result should take (the plan's `outputFormat`). */
  readonly outputFormat?: string;
}

/** A retry is shown at most this many earlier attempts (the latest), each output cut to this many characters. */
export const MAX_EARLIER_ATTEMPTS = 3;
export const MAX_EARLIER_OUTPUT_CHARS = 2_000;

/**
 * The agent's prompt. The extra sections sit in tags of their own, never inside `<objective>`, so scripted replies
 * and readers keyed on the objective are not misled by the text of other subtasks or earlier attempts.
 */
export function executePrompt(
  task: string,
  objective: string,
  parents: readonly ParentOutput[],
  context: ExecuteContext = {},
): string {
  const inputs =
    parents.length === 0
      ? '<inputs>none: this subtask has no prerequisites</inputs>'
      : `<inputs>\n${parents
          .map((p) => `<input from="${p.id}" objective="${escapeAttribute(p.objective)}">\n${clip(p.output)}\n</input>`)
          .join('\n')}\n</inputs>`;
  const sections = [`<task>\n${task}\n</task>`, `<objective>\n${objective}\n</objective>`];
  if (context.outputFormat !== undefined && context.outputFormat.trim() !== '')
    sections.push(`<output-format>${context.outputFormat}</output-format>`);
  sections.push(inputs);
  const neededBy = context.neededBy ?? [];
  if (neededBy.length > 0)
    sections.push(
      `<needed-by>\nYour result is an input to these subtasks; make it complete enough for them:\n${neededBy
        .map((child) => `- ${child.id}: ${child.objective}`)
        .join('\n')}\n</needed-by>`,
    );
  const earlier = context.earlier ?? [];
  if (earlier.length > 0) sections.push(earlierSection(earlier, context.earlierLeftOut ?? 0));
  sections.push(
    earlier.length > 0
      ? 'Carry out the objective again: fix what the feedback on the earlier attempts points out, and answer with the whole result, not only the changes.'
      : 'Carry out the objective.',
  );
  return sections.join('\n\n');
}

function earlierSection(earlier: readonly EarlierAttempt[], leftOut: number): string {
  const note = leftOut > 0 ? `(${leftOut} earlier attempt${leftOut === 1 ? '' : 's'} left out)\n` : '';
  const attempts = earlier.map(
    (entry) =>
      `<attempt n="${entry.attempt}" verdict="${entry.verdict}">\n<result>\n${entry.output}\n</result>\n<feedback>${entry.reason || 'no reason given'}</feedback>\n</attempt>`,
  );
  return `<previous-attempts>\nThis subtask was attempted before and not accepted.\n${note}${attempts.join('\n')}\n</previous-attempts>`;
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
 * The inspector's rules for minimal changes (docs/algorithms.md#prompt-scope), restating the Flow authors' update
 * prompt: change conservatively, and never add the kinds of subtasks the planner may not plan either.
 */
export const INSPECTOR_MINIMAL_RULES = `

Change as little as possible:
- Change only what the failures require; keep completed work and the structure of the workflow.
- A failed subtask usually needs a clearer or simpler objective, or a prerequisite it lacked; do not split
  simple subtasks into smaller ones.
- Do not add subtasks that only test, debug, review, deploy or monitor: results are checked and redone by the
  system itself.`;

/** The inspector's system prompt, with the minimal-change rules unless `minimal` is false. */
export function inspectorSystem(minimal = true): string {
  return minimal ? `${INSPECTOR_SYSTEM}${INSPECTOR_MINIMAL_RULES}` : INSPECTOR_SYSTEM;
}

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
      ...(s.outputFormat !== undefined ? { outputFormat: s.outputFormat } : {}),
    })),
  };
}

/** A failure the inspector is asked to repair: the verifier's (or the error's) reason, and the last output if any. */
export interface FailureReport {
  readonly id: string;
  readonly reason: string;
  /** The failed attempt's whole output (the prompt cuts it, saying how much it cut). */
  readonly output?: string;
}

/** A failed output shown to the inspector is cut to this many characters; the note says where the rest is. */
export const MAX_FAILED_OUTPUT_CHARS = 2_000;

/**
 * `runId` lets the note point at `weft show RUN --attempts ID`, where the whole failed output can be read.
 */
export function updatePrompt(
  workflow: Workflow,
  failed: readonly FailureReport[],
  completedOutputs: readonly ParentOutput[],
  runId?: string,
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
    ...(failed.length > 0 ? [failedOutputs(failed, runId)] : []),
    `<statuses>\n${workflow.subtasks.map((s) => `- ${s.id}: ${s.status}`).join('\n')}\n</statuses>`,
    'Revise the workflow if needed. Answer with the JSON object only ({} for no change).',
  ].join('\n\n');
}

/** What each failed subtask last produced, so the inspector sees the failure itself and not only its verdict. */
function failedOutputs(failed: readonly FailureReport[], runId: string | undefined): string {
  const entries = failed.map((f) => {
    if (f.output === undefined)
      return `<failure id="${f.id}">\n<reason>${f.reason}</reason>\n<last-output>none: the attempt ended without a result</last-output>\n</failure>`;
    const cut = f.output.length > MAX_FAILED_OUTPUT_CHARS;
    const where = runId === undefined ? '' : ` (whole output: weft show ${runId} --attempts ${f.id})`;
    const shown = cut
      ? `${f.output.slice(0, MAX_FAILED_OUTPUT_CHARS)}\n…[${f.output.length - MAX_FAILED_OUTPUT_CHARS} more characters cut${where}]`
      : f.output;
    return `<failure id="${f.id}">\n<reason>${f.reason}</reason>\n<last-output>\n${shown}\n</last-output>\n</failure>`;
  });
  return `<failed-outputs>\n${entries.join('\n')}\n</failed-outputs>`;
}

function escapeAttribute(text: string): string {
  // Most objectives have nothing to escape: one test instead of three replacements per input of every prompt.
  if (!/[&"\n]/.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\n/g, ' ');
}
