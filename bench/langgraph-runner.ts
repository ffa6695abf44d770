/**
 * The same DAG as a LangGraph.js StateGraph: one node per subtask that sleeps the subtask's latency and appends its
 * id to a reducer channel. A subtask with one parent gets a plain edge; one with several gets a waiting edge
 * `addEdge([parents], node)`, LangGraph's join that fires once after all the parents have run.
 */
import { setMaxListeners } from 'node:events';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import type { Workflow } from '../src/graph/index.js';
import type { Span } from './schedule-check.js';
import { sleep } from './sleep.js';

const BenchState = Annotation.Root({
  finished: Annotation<string[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

type BenchGraph = StateGraph<typeof BenchState.spec, typeof BenchState.State, typeof BenchState.Update, string>;

export interface LangGraphRun {
  readonly makespanMs: number;
  readonly spans: Span[];
  readonly finished: readonly string[];
}

export interface LangGraphBench {
  run(): Promise<LangGraphRun>;
}

export function buildLangGraph(workflow: Workflow, latencyMs: ReadonlyMap<string, number>): LangGraphBench {
  // LangGraph adds one abort listener per running node to its step signal; past 10 Node prints a leak warning for
  // every wide superstep. The default limit is process-wide and only governs that warning.
  setMaxListeners(10_000);
  let spans: Span[] = [];
  const builder: BenchGraph = new StateGraph(BenchState);
  const hasChildren = new Set(workflow.subtasks.flatMap((subtask) => subtask.dependsOn));
  for (const subtask of workflow.subtasks) {
    const latency = latencyMs.get(subtask.id) ?? 0;
    builder.addNode(subtask.id, async () => {
      const start = performance.now();
      await sleep(latency);
      spans.push({ id: subtask.id, start, end: performance.now() });
      return { finished: [subtask.id] };
    });
  }
  for (const subtask of workflow.subtasks) {
    const parents = subtask.dependsOn;
    if (parents.length === 0) builder.addEdge(START, subtask.id);
    else if (parents.length === 1) builder.addEdge(parents[0]!, subtask.id);
    else builder.addEdge([...parents], subtask.id);
    if (!hasChildren.has(subtask.id)) builder.addEdge(subtask.id, END);
  }
  const graph = builder.compile();
  // One superstep per rank at most; the default limit of 25 would stop deep DAGs.
  const recursionLimit = workflow.subtasks.length + 10;
  return {
    async run(): Promise<LangGraphRun> {
      spans = [];
      const started = performance.now();
      const state = await graph.invoke({ finished: [] }, { recursionLimit });
      const makespanMs = performance.now() - started;
      return { makespanMs, spans, finished: state.finished };
    },
  };
}
