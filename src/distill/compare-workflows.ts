/**
 * WorfEval (docs/algorithms.md#worfeval-scoring) of one executable workflow against a reference one: both become
 * WorfBench text (`workflowToWorfText`) and are scored like a prediction against its gold. What `weft eval
 * pred.workflow.json --gold ref.workflow.json` prints, and what a distillation harness can report per task.
 */
import { WeftError } from '../errors.js';
import type { SampleScore, ScoreOptions } from '../eval/sample-score.js';
import { scoreWithSimilarity } from '../eval/score-workflow.js';
import type { Similarity } from '../eval/similarity.js';
import type { WorkflowText } from '../eval/workflow-text.js';
import type { ExecutableWorkflow } from './workflow.js';
import { workflowToWorfText } from './workflow-to-worf-text.js';

/**
 * WorfEval is made for workflows of tens of steps (WorfBench's have at most about 30): its gold orders are searched
 * depth first and its similarity matrix is steps × steps, so a larger workflow is refused rather than left to run
 * out of stack or memory.
 */
export const MAX_SCORED_STEPS = 500;

export interface WorkflowComparison {
  readonly score: SampleScore;
  readonly gold: WorkflowText;
  readonly predicted: WorkflowText;
}

/**
 * Throws BAD_INPUT (field `gold` or `predicted`) for a workflow with no tool or condition step (there is nothing to
 * match, and precision or recall would divide by zero) or with more than MAX_SCORED_STEPS.
 */
export async function compareWorkflows(
  gold: Pick<ExecutableWorkflow, 'nodes' | 'edges'>,
  predicted: Pick<ExecutableWorkflow, 'nodes' | 'edges'>,
  similarity: Similarity,
  options: ScoreOptions & { readonly signal?: AbortSignal } = {},
): Promise<WorkflowComparison> {
  return compareWorkflowTexts(workflowToWorfText(gold), workflowToWorfText(predicted), similarity, options);
}

/**
 * The same for workflows already in WorfBench text (however they were written: a plan, WorfBench text, an
 * executable workflow), with the same refusals.
 */
export async function compareWorkflowTexts(
  goldText: WorkflowText,
  predictedText: WorkflowText,
  similarity: Similarity,
  options: ScoreOptions & { readonly signal?: AbortSignal } = {},
): Promise<WorkflowComparison> {
  for (const [field, text] of [
    ['gold', goldText],
    ['predicted', predictedText],
  ] as const) {
    if (text.nodes.length === 0) {
      throw new WeftError('BAD_INPUT', `the ${field} workflow has no tool or condition step, so nothing to score`, {
        location: { field },
      });
    }
    if (text.nodes.length > MAX_SCORED_STEPS) {
      throw new WeftError(
        'BAD_INPUT',
        `the ${field} workflow has ${text.nodes.length} tool and condition steps; WorfEval scores at most ${MAX_SCORED_STEPS}`,
        { location: { field } },
      );
    }
  }
  const score = await scoreWithSimilarity(goldText, predictedText, similarity, options);
  return { score, gold: goldText, predicted: predictedText };
}
