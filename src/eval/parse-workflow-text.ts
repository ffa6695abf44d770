/**
 * Reads WorfBench workflow text (docs/algorithms.md#worfbench-workflow-text): gold answers and model predictions alike.
 * Both are messy (see the gold data's README), so the reader takes the first well-formed node list and the edge list
 * after it, reports every line it did not use, and returns located issues for what it cannot use. One pass over the
 * lines.
 */
import { findCycle } from '../graph/topological-order.js';
import type { EdgeSource, EdgeTarget, WorkflowText } from './workflow-text.js';

export type WorkflowTextProblem = 'empty' | 'no-nodes' | 'unknown-node' | 'cycle' | 'bad-edge';

/** A problem that makes the text unusable, located 1-based in the text. */
export interface WorkflowTextIssue {
  readonly problem: WorkflowTextProblem;
  readonly line: number;
  readonly column: number;
  readonly field: 'text' | 'nodes' | 'edges';
  readonly message: string;
}

/** A non-blank line (or an edge) the reader did not use, and why. */
export interface SkippedText {
  /** 1-based. */
  readonly line: number;
  /** 1-based; set only for a dropped edge, which shares its line with used ones. */
  readonly column?: number;
  readonly text: string;
  readonly reason: string;
}

export type ParseWorkflowTextResult =
  | { readonly ok: true; readonly workflow: WorkflowText; readonly skipped: readonly SkippedText[] }
  | { readonly ok: false; readonly issues: readonly WorkflowTextIssue[]; readonly skipped: readonly SkippedText[] };

// Every pattern is linear on any line: no two adjacent quantified parts can match the same characters, so a
// long line of spaces cannot make the matcher backtrack quadratically (the parser runs on model output).

// `Node:`, `Nodes:`, `**Node:**`, `### Nodes`, `- **Node list**:` — the header word with decoration only.
const NODE_HEADER = /^[\s#>*_`-]*nodes?(?:\s+(?:list|chain))?[\s*_`]*(?::[\s*_`]*)?$/i;
// `Edge:`, `Edges:`, `Graph:`, `Edge:**` — a label before (or inside) the edge list.
const EDGE_LABEL = /^[\s#>*_`-]*(?:edges?|graph)(?:\s+list)?[\s*_`]*(?::[\s*_`]*)?$/i;
// A legend header after a node list whose nodes are placeholders (`1: A` … `Where:` `A: …`).
const LEGEND_HEADER = /^[\s*_]*where[\s*_]*:[\s*_]*$/i;
const LEGEND_ENTRY = /^[\s*_-]*([A-Za-z]\w{0,9})[\s*_]*:(.*)$/s;
// `1: text`, `1. text`, `1) text` (a `.` needs a space after it, so `1.5 cups` is not node 1).
const PLAIN_NODE = /^\s*(\d+)(?::|\.(?=\s|$)|\))(.*)$/s;
// The same with markdown around the number, or a `Node`/`Step` word: `- 1: …`, `**1.** …`, `**Node 1:** …`.
// Only read directly under a Node header, where nothing else is plausible.
const DECORATED_NODE =
  /^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:(?:node|step)\s+)?(\d+)\s*(?:(?:\*\*|__)\s*)?(?::|\.(?=[\s*_]|$)|\))(.*)$/is;
// `(a,b)` with any of START, END or a number on either side; which combinations are allowed is checked later.
const TUPLE = /\(\s*(START|END|\d+)\s*,\s*(START|END|\d+)\s*\)/gi;
const HAS_TUPLE = /\(\s*(?:START|END|\d+)\s*,\s*(?:START|END|\d+)\s*\)/i;
// A line that is an edge and nothing else at its start: a list marker, an `Edge:` label, then a tuple. Such lines
// continue the edge list even after prose interrupted it (`- (1, END)` under `To end:`).
const EDGE_LINE =
  /^\s*(?:(?:[-*+>]|\d+[.)])\s*)?(?:[*_`]+\s*)?(?:(?:edges?|graph)[*_`]*\s*:\s*(?:[*_`]+\s*)?)?\(\s*(?:START|END|\d+)\s*,\s*(?:START|END|\d+)\s*\)/i;
// Blank for reading purposes: whitespace, a code fence or a horizontal rule.
const BLANK = /^\s*(?:(?:`{3,}[\w-]*|[-*_=]{3,})\s*)?$/;

interface NodeLine {
  readonly number: number;
  readonly text: string;
  /** 1-based column where the text starts (or would start). */
  readonly column: number;
}

/**
 * Parses one workflow text.
 * - Nodes: the first run of numbered lines 1, 2, 3, … (after a `Node:` header when there is one); the first
 *   line that breaks the run (blank, prose, a repeated or skipped number) ends it.
 * - Edges: from the first later line holding a tuple, the run of lines holding tuples (blank lines and `Edge:`
 *   labels allowed), ended by the first other line. After that, only lines that are edges at their start
 *   (`- (1, END)`, `3. **Edge**: (1, 2)`) add edges; a second `Node:` header ends the workflow.
 * - Edges are deduplicated silently; (START,END) is dropped and reported as skipped.
 */
export function parseWorkflowText(text: string): ParseWorkflowTextResult {
  const skipped: SkippedText[] = [];
  const issues: WorkflowTextIssue[] = [];
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (source.trim() === '') {
    return {
      ok: false,
      issues: [{ problem: 'empty', line: 1, column: 1, field: 'text', message: 'the workflow text is empty' }],
      skipped,
    };
  }
  const lines = source.split(/\r?\n/);
  const skip = (index: number, reason: string): void => {
    const line = lines[index] ?? '';
    if (!BLANK.test(line)) skipped.push({ line: index + 1, text: line.trim(), reason });
  };

  // 1. The node list.
  const header = lines.findIndex((line) => NODE_HEADER.test(line));
  let start = -1;
  let decorated = false;
  if (header >= 0) {
    let first = header + 1;
    while (first < lines.length && BLANK.test(lines[first] ?? '')) first++;
    if (readNodeLine(lines[first], true)?.number === 1) {
      start = first;
      decorated = true;
    }
  }
  if (start < 0) start = findPlainListStart(lines, header + 1);
  if (start < 0) {
    for (let index = 0; index < lines.length; index++)
      if (index !== header) skip(index, 'no node list to attach it to');
    const line = header >= 0 ? header + 1 : 1;
    const message =
      header >= 0
        ? 'the Node section has no numbered node lines (expected "1: …", "2: …")'
        : 'no node list found (expected a "Node:" line, then numbered lines "1: …", "2: …")';
    return { ok: false, issues: [{ problem: 'no-nodes', line, column: 1, field: 'nodes', message }], skipped };
  }
  for (let index = 0; index < start; index++) if (index !== header) skip(index, 'before the node list');

  const nodes: NodeLine[] = [];
  const nodeLineIndex: number[] = [];
  let index = start;
  for (; index < lines.length; index++) {
    const node = readNodeLine(lines[index], decorated);
    if (node?.number !== nodes.length + 1) break;
    nodes.push(node);
    nodeLineIndex.push(index);
  }
  const afterNodes = index;
  const nodeTexts = nodes.map((node) => node.text);

  // 2. Between the nodes and the edges: labels, a legend for placeholder nodes, or prose to skip.
  let edgeStart = afterNodes;
  while (edgeStart < lines.length && !HAS_TUPLE.test(lines[edgeStart] ?? '')) edgeStart++;
  const legend = readLegend(lines, afterNodes, edgeStart, nodeTexts);
  for (let between = afterNodes; between < edgeStart; between++) {
    const line = lines[between] ?? '';
    if (EDGE_LABEL.test(line) || legend?.lines.has(between)) continue;
    skip(between, edgeStart < lines.length ? 'between the node list and the edges' : 'after the node list');
  }
  if (legend) legend.values.forEach((value, position) => (nodeTexts[position] = value));

  // 3. The edge lines.
  const edgeLines: number[] = [];
  let position = edgeStart;
  for (; position < lines.length; position++) {
    const line = lines[position] ?? '';
    if (HAS_TUPLE.test(line)) edgeLines.push(position);
    else if (!BLANK.test(line) && !EDGE_LABEL.test(line)) break;
  }
  for (; position < lines.length; position++) {
    const line = lines[position] ?? '';
    if (NODE_HEADER.test(line)) {
      for (let rest = position; rest < lines.length; rest++) skip(rest, 'a second workflow after the first');
      break;
    }
    if (EDGE_LINE.test(line)) edgeLines.push(position);
    else skip(position, 'after the edges');
  }
  if (edgeLines.length === 0) {
    skipped.push({
      line: afterNodes + 1,
      text: '',
      reason: 'no edge list found after the node list: no line has a tuple such as (START,1)',
    });
  }

  // 4. Edges: checked, deduplicated, located.
  const count = nodes.length;
  const edges: (readonly [EdgeSource, EdgeTarget])[] = [];
  const seen = new Set<string>();
  const locationOf = new Map<string, { line: number; column: number }>();
  for (const lineIndex of edgeLines) {
    const line = lines[lineIndex] ?? '';
    for (const match of line.matchAll(TUPLE)) {
      const tuple = match[0];
      const at = { line: lineIndex + 1, column: (match.index ?? 0) + 1 };
      const from = readEnd(match[1] ?? '');
      const to = readEnd(match[2] ?? '');
      const edgeIssue = (problem: WorkflowTextProblem, message: string) =>
        issues.push({ problem, ...at, field: 'edges', message });
      if (from === 'START' && to === 'END') {
        skipped.push({ ...at, text: tuple, reason: 'an edge from START straight to END says nothing; dropped' });
        continue;
      }
      if (from === 'END' || to === 'START') {
        edgeIssue(
          'bad-edge',
          `edge ${tuple} ${from === 'END' ? 'leaves END' : 'enters START'}; edges go from START or a node to a node or END`,
        );
        continue;
      }
      const unknown = [from, to].filter((end): end is number => typeof end === 'number' && (end < 1 || end > count));
      if (unknown.length > 0) {
        const names =
          unknown.length === 2 && unknown[0] !== unknown[1]
            ? `nodes ${unknown[0]} and ${unknown[1]}`
            : `node ${unknown[0]}`;
        edgeIssue(
          'unknown-node',
          `edge ${tuple} names ${names}, but the node list has ${count === 1 ? 'only node 1' : `nodes 1 to ${count}`}`,
        );
        continue;
      }
      if (from === to) {
        edgeIssue('cycle', `edge ${tuple} makes node ${from} depend on itself`);
        continue;
      }
      const key = `${from},${to}`;
      if (seen.has(key)) continue;
      seen.add(key);
      locationOf.set(key, at);
      edges.push([from as EdgeSource, to as EdgeTarget]);
    }
  }

  // 5. Empty node texts and cycles.
  nodes.forEach((node, position) => {
    if ((nodeTexts[position] ?? '') === '') {
      issues.push({
        problem: 'empty',
        line: (nodeLineIndex[position] ?? 0) + 1,
        column: node.column,
        field: 'nodes',
        message: `node ${node.number} has no text`,
      });
    }
  });
  const nodeEdges = edges.flatMap(([from, to]): [string, string][] =>
    typeof from === 'number' && typeof to === 'number' ? [[String(from), String(to)]] : [],
  );
  const cycle = findCycle(
    nodes.map((node) => String(node.number)),
    nodeEdges,
  );
  if (cycle) {
    const closing = locationOf.get(`${cycle[cycle.length - 1]},${cycle[0]}`) ?? { line: 1, column: 1 };
    issues.push({
      problem: 'cycle',
      ...closing,
      field: 'edges',
      message: `the edges form a cycle: ${[...cycle, cycle[0]].join(' -> ')}`,
    });
  }

  skipped.sort((a, b) => a.line - b.line);
  if (issues.length > 0) {
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, issues, skipped };
  }
  return { ok: true, workflow: { nodes: nodeTexts, edges }, skipped };
}

function readNodeLine(line: string | undefined, decorated: boolean): NodeLine | undefined {
  if (line === undefined) return undefined;
  const plain = PLAIN_NODE.exec(line);
  const match = plain ?? (decorated ? DECORATED_NODE.exec(line) : null);
  if (!match) return undefined;
  // `**1.** text`: the closing bold after the number is decoration, not text.
  const tail = match[2] ?? '';
  const text = (plain ? tail : tail.replace(/^\s*(?:\*\*|__)/, '')).trim();
  // The text is the trimmed tail of the line, so it starts where it ends minus its length (column of an empty
  // text: just past the line's content).
  const column = text === '' ? line.trimEnd().length + 1 : line.trimEnd().length - text.length + 1;
  return { number: Number(match[1]), text, column };
}

/** The first plain `1: …` line at or after `from`, or -1. */
function findPlainListStart(lines: readonly string[], from: number): number {
  for (let index = Math.max(0, from); index < lines.length; index++) {
    if (readNodeLine(lines[index], false)?.number === 1) return index;
  }
  return -1;
}

/**
 * `Where:` followed by `A: text` lines that define every node text (the nodes are placeholders such as `A`):
 * the real texts, in node order, and the lines used. Undefined when there is no such legend.
 */
function readLegend(
  lines: readonly string[],
  from: number,
  to: number,
  nodeTexts: readonly string[],
): { values: string[]; lines: Set<number> } | undefined {
  for (let index = from; index < to; index++) {
    if (!LEGEND_HEADER.test(lines[index] ?? '')) continue;
    const definitions = new Map<string, string>();
    const used = new Set<number>([index]);
    for (let entry = index + 1; entry < to; entry++) {
      const line = lines[entry] ?? '';
      if (BLANK.test(line)) continue;
      const match = LEGEND_ENTRY.exec(line);
      if (!match) break;
      definitions.set(match[1] ?? '', (match[2] ?? '').trim());
      used.add(entry);
    }
    const values = nodeTexts.map((text) => definitions.get(text));
    if (values.length === 0 || values.some((value) => value === undefined || value === '')) return undefined;
    return { values: values as string[], lines: used };
  }
  return undefined;
}

function readEnd(raw: string): number | 'START' | 'END' {
  const upper = raw.toUpperCase();
  return upper === 'START' || upper === 'END' ? upper : Number(raw);
}
