/**
 * The white-box column of `weft distill eval`: WorfEval's f1_chain and f1_graph of a distilled workflow against the
 * task's reference workflow (compare-workflows.ts, as `weft eval pred.workflow.json --gold ref.workflow.json` scores
 * one), with the offline lexical similarity fitted on the reference's step texts. The FlowMind paper judges
 * workflows black-box and keeps a structural comparison with a reference as a diagnostic; this is that diagnostic.
 */
import { WeftError } from '../errors.js';
import { createLexicalSimilarity } from '../eval/lexical-similarity.js';
import { compareWorkflowTexts } from './compare-workflows.js';
import type { ExecutableWorkflow } from './workflow.js';
import { workflowToWorfText } from './workflow-to-worf-text.js';

export interface WorfColumn {
  readonly f1_chain: number;
  readonly f1_graph: number;
}

/**
 * The scores, or why there are none (a reference with no tool or condition step, or one too large for WorfEval).
 * A missing workflow, or one with no step, matches nothing: 0 and 0.
 */
export async function scoreAgainstReference(
  reference: ExecutableWorkflow,
  workflow: ExecutableWorkflow | undefined,
  signal?: AbortSignal,
): Promise<WorfColumn | { readonly error: string }> {
  const gold = workflowToWorfText(reference);
  if (gold.nodes.length === 0) return { error: 'the reference workflow has no tool or condition step to match' };
  const predicted = workflow ? workflowToWorfText(workflow) : undefined;
  if (!predicted || predicted.nodes.length === 0) return { f1_chain: 0, f1_graph: 0 };
  try {
    const { score } = await compareWorkflowTexts(
      gold,
      predicted,
      createLexicalSimilarity({ corpus: gold.nodes }),
      signal ? { signal } : {},
    );
    return { f1_chain: score.f1_chain, f1_graph: score.f1_graph };
  } catch (error) {
    if (error instanceof WeftError && error.code === 'BAD_INPUT') return { error: error.message };
    throw error;
  }
}
