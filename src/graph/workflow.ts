/**
 * The workflow model: an Activity-on-Vertex graph of subtasks (docs/algorithms.md#workflow-model).
 * Types only; the functions over them live in files of their own in this folder.
 * Everything here is immutable: updates produce new objects.
 */

export type SubtaskStatus = 'not started' | 'in progress' | 'completed' | 'failed';

export const SUBTASK_STATUSES: readonly SubtaskStatus[] = ['not started', 'in progress', 'completed', 'failed'];

export interface Subtask {
  readonly id: string;
  /** The subtask requirement text. */
  readonly objective: string;
  /** The role (agent) name that runs it. */
  readonly agent: string;
  /** Ids of the subtasks that must complete first (the incoming edges). */
  readonly dependsOn: readonly string[];
  readonly status: SubtaskStatus;
  /** The paper's `data`: the subtask's result, once it has one. */
  readonly output?: string;
  /** How many times the subtask has been started. */
  readonly attempts: number;
  /** The form its result should take ("Python code", "Markdown", …), shown to its agent. Optional. */
  readonly outputFormat?: string;
}

/**
 * `llm`: an agent with a role prompt. `team`: the subtask runs through a DyLAN team (src/team). Any other kind
 * names a role kind engine the run is given (run/role-kind.ts); a run checks its plan's kinds when it starts.
 */
// `string & {}` keeps the two built-in names as suggestions while any registered kind type-checks.
export type RoleKind = 'llm' | 'team' | (string & {});

export interface Role {
  readonly name: string;
  /** The role's system prompt. */
  readonly prompt: string;
  readonly kind: RoleKind;
  /** For `team` roles: the team file. */
  readonly team?: string;
  /** For `team` roles: the key its importance scores are kept under with the team's name (default `general`). */
  readonly taskType?: string;
  /** For `llm` roles: the tools (by name, from the run's tools) its agent may call in a bounded tool loop. */
  readonly tools?: readonly string[];
}

export interface Workflow {
  readonly task: string;
  readonly roles: readonly Role[];
  readonly subtasks: readonly Subtask[];
}

/**
 * The plan-file shape of docs/contracts.md: what `toJSON` writes and `parseWorkflow` reads.
 * `roles`, `status`, `output` and `attempts` are optional on input.
 */
export interface WorkflowJson {
  task: string;
  roles?: {
    name: string;
    prompt: string;
    kind?: RoleKind;
    team?: string;
    taskType?: string;
    tools?: readonly string[];
  }[];
  subtasks: {
    id: string;
    objective: string;
    agent: string;
    dependsOn: string[];
    status?: SubtaskStatus;
    output?: string;
    attempts?: number;
    outputFormat?: string;
  }[];
}
