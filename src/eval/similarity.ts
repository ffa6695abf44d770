/**
 * The pluggable similarity WorfEval matches nodes with (docs/algorithms.md#node-similarity). The paper uses the cosine
 * of Sentence-BERT embeddings; Weft takes any implementation of this contract.
 */
export type SimilarityKind = 'lexical' | 'embedding' | 'custom';

export interface Similarity {
  /** Shown in every report, e.g. `lexical (TF-IDF word+char n-grams; offline fallback)`. */
  readonly name: string;
  readonly kind: SimilarityKind;
  /** `result[i][j]` = similarity of `rows[i]` and `columns[j]`, a cosine in [-1, 1] (1 for equal texts). */
  matrix(rows: readonly string[], columns: readonly string[], signal?: AbortSignal): Promise<number[][]>;
  /** Releases models or connections it holds. */
  close?(): Promise<void>;
}

/** Wraps a plain `similarity(a, b)` function, for users who bring their own. */
export function similarityFromFunction(
  name: string,
  similarity: (a: string, b: string) => number | Promise<number>,
): Similarity {
  return {
    name,
    kind: 'custom',
    async matrix(rows, columns) {
      return Promise.all(rows.map((row) => Promise.all(columns.map(async (column) => similarity(row, column)))));
    },
  };
}
