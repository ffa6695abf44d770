/**
 * The contracts between distillation's parts (the FlowMind paper's execute-summarize pipeline): the execute stage (`solveTask`, solve.ts), the
 * summarize stage (`distillTraces`, distill-traces.ts), the single-stage baselines (`solveAndBuild`,
 * single-stage.ts) and the suite harness that strings them together (`weft distill eval`). Types only.
 */
import type { ChatModel } from '../llm/chat-model.js';
import type { NewTrace, TraceUsage } from '../store/traces.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import type { ExecutableWorkflow, WorkflowProblem } from './workflow.js';

/** How an agent works: ReAct (think, call, observe, …) or Plan-and-Execute (plan the steps, then run each). */
export type AgentStrategy = 'react' | 'plan-execute';

/**
 * The paper's four ways to get a workflow. `es-pe` (the default) and `es-react`: execute with that strategy, then
 * summarize with the same strategy using graph tools only. `react` and `pe`: the single-stage baselines, one agent
 * with business and graph tools together that solves and builds at once (where mixed tool calls happen).
 */
export type DistillVariant = 'es-pe' | 'es-react' | 'react' | 'pe';
export const DISTILL_VARIANTS: readonly DistillVariant[] = ['es-pe', 'es-react', 'react', 'pe'];

/**
 * Which traces of a task the summarizer gets: the FlowMind paper's three rules — `random_success` (the default: one
 * successful trace, drawn with a seed), `all_success` (every successful one), `all` (every trace, successful or
 * not) — and Weft's `first` (the first trace as given).
 */
export type TraceSelection = 'random_success' | 'all_success' | 'all' | 'first';
export const TRACE_SELECTIONS: readonly TraceSelection[] = ['random_success', 'all_success', 'all', 'first'];

export interface SolveOptions {
  readonly model: ChatModel;
  /** Business tools: the only tools of this stage. */
  readonly tools: readonly Tool[];
  readonly task: string;
  /** The instance's inputs. */
  readonly input: Readonly<Record<string, JsonValue>>;
  readonly mode?: AgentStrategy;
  /** Model calls the agent may make (a deadline: the trace ends unsuccessful past it). */
  readonly maxSteps?: number;
  readonly taskKey?: string;
  /**
   * Which rollout of this input this solve is (from 1; `weft distill eval --rollouts N` solves each train input N
   * times). It goes into each call's tag as `attempt`, so a seeded sim model rolls out differently each time; a
   * real model differs by its own sampling.
   */
  readonly rollout?: number;
  readonly expected?: unknown;
  readonly toolsPath?: string;
  readonly signal?: AbortSignal;
  /**
   * When `signal` aborts: return the trace so far (unsuccessful, its error saying it was cancelled) instead of
   * throwing, so the calls already made are not lost (`weft solve` on Ctrl-C). Default false: the abort is thrown.
   */
  readonly keepOnAbort?: boolean;
}
/** solve.ts: `solveTask(options: SolveOptions): Promise<NewTrace>` — the trace is returned, the caller saves it. */
export type SolveTask = (options: SolveOptions) => Promise<NewTrace>;

export interface DistillOptions {
  readonly model: ChatModel;
  /** The traces to summarize (already selected). */
  readonly traces: readonly NewTrace[];
  /** The business tools: described to the model (names, descriptions, schemas), never callable in this stage. */
  readonly tools: readonly Tool[];
  /** The summarizer's own strategy (ES-P&E plans the graph first). Default `plan-execute`. */
  readonly strategy?: AgentStrategy;
  /** The workflow's name (default from the task key, else `distilled`). */
  readonly name?: string;
  /** Model calls before giving up without `finish` (a deadline). */
  readonly maxSteps?: number;
  readonly signal?: AbortSignal;
  /**
   * When `signal` aborts: return the graph so far (unfinished, its error saying it was cancelled) instead of
   * throwing (`weft distill` on Ctrl-C writes it as the partial workflow). Default false: the abort is thrown.
   */
  readonly keepOnAbort?: boolean;
}

export interface DistillResult {
  /** The graph as built: whole when `finished`, else the partial graph (saved so a user can see how far it got). */
  readonly workflow: ExecutableWorkflow;
  /** The model called `finish` and the graph passed the check then. */
  readonly finished: boolean;
  /** `checkWorkflow`'s findings on `workflow`. */
  readonly problems: readonly WorkflowProblem[];
  /** No error among `problems`. */
  readonly valid: boolean;
  /** Business tools the model called while building the graph (refused): the paper's mixed tool calls. */
  readonly mixedCalls: number;
  /** Graph tool calls made (accepted or refused). */
  readonly graphCalls: number;
  /** Model calls. */
  readonly steps: number;
  readonly usage: TraceUsage;
  /** Why it did not finish. */
  readonly error?: string;
}
/** distill-traces.ts: `distillTraces(options: DistillOptions): Promise<DistillResult>`. */
export type DistillTraces = (options: DistillOptions) => Promise<DistillResult>;

/** single-stage.ts: the baselines — one agent with both tool sets; its business calls make the trace. */
export type SolveAndBuild = (
  options: SolveOptions & { readonly name?: string },
) => Promise<{ readonly trace: NewTrace; readonly distill: DistillResult }>;
