/** A plan's DAG laid out: what `/api/runs/:id/layout` answers and the page draws. */
export interface LaidOutNode {
  readonly id: string;
  readonly agent: string;
  /** Centre of the box. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface LaidOutEdge {
  readonly from: string;
  readonly to: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

export interface PlanLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly LaidOutNode[];
  readonly edges: readonly LaidOutEdge[];
}
