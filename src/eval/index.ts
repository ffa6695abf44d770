/**
 * WorfEval and WorfBench (issue 4, SPEC §2): the public surface of src/eval. Parse workflow text, score it
 * against gold with a pluggable similarity, load WorfBench gold, evaluate prediction files, run the benchmark.
 */
export * from './workflow-text.js';
export * from './parse-workflow-text.js';
export * from './format-workflow-text.js';
export * from './workflow-text-graph.js';
export * from './perturb-workflow-text.js';

export * from './similarity.js';
export * from './cosine.js';
export * from './lexical-similarity.js';
export * from './similarity-spec.js';

export * from './sample-score.js';
export * from './score-workflow.js';
export * from './match-nodes.js';
export * from './longest-increasing-subsequence.js';
export * from './maximum-independent-set.js';
export * from './reference-orders.js';

export * from './scenarios.js';
export * from './gold-data.js';
export * from './predictions-file.js';
export * from './eval-report.js';
export * from './evaluate.js';

export * from './worfbench-prompt.js';
export * from './plan-as-workflow-text.js';
export * from './counted-model.js';
export * from './predictions-writer.js';
export * from './run-worfbench.js';
