/**
 * Weft's own planner in WorfBench's form (`weft plan --format worfbench`): K candidate plans, the most
 * parallel chosen (ties: the least complex, docs/algorithms.md#planning), converted to a node chain and edges.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { planTask, type PlanResult } from '../plan/plan-task.js';
import { formatWorkflowText } from './format-workflow-text.js';
import { workflowToWorkflowText } from './workflow-text-graph.js';
import type { WorkflowText } from './workflow-text.js';

/**
 * Appended to the task so that the planner's subtasks have WorfBench's granularity (one per action) rather than
 * the coarser modules it plans for its own agents; the single-shot prompt states the same rule.
 */
export const WORFBENCH_PLANNING_NOTE = `Plan at the granularity of the actions this task allows: one subtask per action or step an agent takes,
each objective naming that action and its objects or arguments. Add no subtasks for reviewing or reporting
unless the task asks for them.`;

export interface PlanAsWorkflowTextOptions {
  /** The task, e.g. a WorfBench record's user message (task + action list). */
  readonly task: string;
  readonly model: ChatModel;
  /** K (default 3). */
  readonly candidates?: number;
  readonly signal?: AbortSignal;
}

export interface PlanAsWorkflowText {
  readonly plan: PlanResult;
  readonly workflow: WorkflowText;
  /** `Node:\n1: …\nEdge: (START,1) …`, what WorfEval reads. */
  readonly text: string;
}

export async function planAsWorkflowText(options: PlanAsWorkflowTextOptions): Promise<PlanAsWorkflowText> {
  const plan = await planTask({
    task: worfbenchPlanningTask(options.task),
    model: options.model,
    ...(options.candidates !== undefined ? { candidates: options.candidates } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const workflow = workflowToWorkflowText(plan.workflow);
  return { plan, workflow, text: formatWorkflowText(workflow) };
}

export function worfbenchPlanningTask(task: string): string {
  return `${task.trimEnd()}\n\n${WORFBENCH_PLANNING_NOTE}`;
}
