/**
 * Executable workflows: what FlowMind distils a solved task into, and what runs on new inputs with no model at all.
 * A JSON (or YAML) document of nodes and edges; values are literal JSON or JSONata expressions inside `{% … %}`
 * (the convention of AWS Step Functions) that see `inputs` and `vars`. The format is a contract (docs/workflows.md):
 * extend, do not rename. Plain data, no I/O.
 */

export const NODE_KINDS = ['start', 'end', 'tool', 'condition', 'set', 'forEach'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** Node visits one case may make before it is stopped (loops are back-edges through a condition). */
export const DEFAULT_MAX_VISITS = 10_000;

export type WorkflowNode =
  | { readonly id: string; readonly kind: 'start' }
  /** `output` (a value or expression) is the workflow's result. */
  | { readonly id: string; readonly kind: 'end'; readonly output?: unknown }
  /** Calls `tool` with `args` (values or expressions); `out` names the variable that receives the result. */
  | {
      readonly id: string;
      readonly kind: 'tool';
      readonly tool: string;
      readonly args?: Readonly<Record<string, unknown>>;
      readonly out?: string;
    }
  /** Its outgoing edges carry `when` (true/false, or values for a multi-way branch) and at most one `default`. */
  | { readonly id: string; readonly kind: 'condition'; readonly expr: string }
  | { readonly id: string; readonly kind: 'set'; readonly values: Readonly<Record<string, unknown>> }
  /**
   * Runs the sub-path that starts at `body` once per item of `items` (an expression), with the item in
   * `vars[as]` (default `item`); the sub-path ends where it leads back to this node. `result` (default: the item
   * variable after the sub-path) is collected per item into `vars[out]`. Then the node's other edge is taken.
   */
  | {
      readonly id: string;
      readonly kind: 'forEach';
      readonly items: string;
      readonly as?: string;
      readonly body: string;
      readonly result?: unknown;
      readonly out?: string;
    };

export interface WorkflowEdge {
  readonly from: string;
  readonly to: string;
  /** On a condition's edges: the value of `expr` that takes this edge. */
  readonly when?: boolean | string | number | null;
  /** On a condition's edges: taken when no `when` matches. */
  readonly default?: boolean;
}

export interface ExecutableWorkflow {
  readonly name: string;
  readonly description?: string;
  /** Input names with a JSON Schema each; inputs are validated against them before a case runs. */
  readonly inputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
}

/** A finding of `weft workflow check`, located by its path in the document (and line/column when read from a file). */
export interface WorkflowProblem {
  readonly severity: 'error' | 'warning';
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** e.g. `nodes[3].args.a`. */
  readonly path?: string;
  /** The node it is about, when it is about one. */
  readonly node?: string;
  readonly message: string;
}

/** `{% expr %}` → `expr`; undefined for a value that is not an expression. */
export function expressionOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^\s*\{%([\s\S]*)%\}\s*$/.exec(value);
  return match ? (match[1] as string).trim() : undefined;
}
