/** The drawings of an executable workflow (`weft workflow show`): listing, Mermaid and DOT, on fixtures and on hostile ids. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pdlMermaid } from '../../src/dialog/api-graph.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { workflowDot } from '../../src/distill/workflow-dot.js';
import { workflowListing } from '../../src/distill/workflow-listing.js';
import { workflowMermaid } from '../../src/distill/workflow-mermaid.js';
import { drawnEdges, nodeDetail, valueText } from '../../src/distill/workflow-view.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/workflows/${name}`, import.meta.url), 'utf8')) as ExecutableWorkflow;
const sumToN = fixture('sum-to-n.workflow.json');
const everyKind = fixture('every-kind.workflow.json');

describe('workflowMermaid', () => {
  it('draws sum-to-n: stadium start and end, a diamond condition with dashed labelled branches', () => {
    expect(workflowMermaid(sumToN)).toBe(
      [
        'flowchart TD',
        '  %% sum_to_n',
        '  n_start(["start"])',
        '  n_init("init<br/>i = 0, acc = 0")',
        '  n_more{"more<br/>vars.i #60; inputs.n"}',
        '  n_add["add<br/>add#40;a: vars.acc, b: vars.i + 1#41; → acc"]',
        '  n_next("next<br/>i = vars.i + 1")',
        '  n_end(["end<br/>output vars.acc"])',
        '  n_start --> n_init',
        '  n_init --> n_more',
        '  n_more -. "true" .-> n_add',
        '  n_more -. "false" .-> n_end',
        '  n_add --> n_next',
        '  n_next --> n_more',
        '',
      ].join('\n'),
    );
  });

  it('draws every kind: forEach as a hexagon with its (implicit) body edge labelled each, multi-way branches and default', () => {
    const chart = workflowMermaid(everyKind);
    expect(chart).toContain(
      '  n_each{{"each<br/>for each x in inputs.xs, body plus, collect vars.total, into partials"}}',
    );
    expect(chart).toContain('  n_each -- "each" --> n_plus');
    expect(chart).toContain('  n_size -. "#34;big#34;" .-> n_big');
    expect(chart).toContain('  n_size -. "default" .-> n_small');
    expect(chart).toContain('  n_label("label<br/>label = #34;medium#34;")');
    expect(chart).toContain('  n_medium(["medium<br/>output #123;size: vars.label, partials: vars.partials#125;"])');
    // Each file edge once, plus the body edge the file leaves implicit.
    expect(chart.split('\n').filter((line) => /-->|\.->/.test(line))).toHaveLength(everyKind.edges.length + 1);
  });
});

describe('workflowDot', () => {
  it('draws sum-to-n with dashed, labelled condition edges', () => {
    expect(workflowDot(sumToN)).toBe(
      [
        'digraph workflow {',
        '  label="sum_to_n";',
        '  labelloc=t;',
        '  rankdir=TB;',
        '  node [shape=box];',
        '  n_start [label="start", shape=oval];',
        '  n_init [label="init\\ni = 0, acc = 0", shape=box, style=rounded];',
        '  n_more [label="more\\nvars.i < inputs.n", shape=diamond];',
        '  n_add [label="add\\nadd(a: vars.acc, b: vars.i + 1) → acc", shape=box];',
        '  n_next [label="next\\ni = vars.i + 1", shape=box, style=rounded];',
        '  n_end [label="end\\noutput vars.acc", shape=oval];',
        '  n_start -> n_init;',
        '  n_init -> n_more;',
        '  n_more -> n_add [label="true", style=dashed];',
        '  n_more -> n_end [label="false", style=dashed];',
        '  n_add -> n_next;',
        '  n_next -> n_more;',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('draws every kind: a hexagon forEach with an each edge, the default branch dashed', () => {
    const dot = workflowDot(everyKind);
    expect(dot).toContain('shape=hexagon];');
    expect(dot).toContain('  n_each -> n_plus [label="each"];');
    expect(dot).toContain('  n_size -> n_big [label="\\"big\\"", style=dashed];');
    expect(dot).toContain('  n_size -> n_small [label="default", style=dashed];');
  });
});

describe('an explicit body edge', () => {
  it('is drawn once, as the each edge', () => {
    const explicit = { ...everyKind, edges: [...everyKind.edges, { from: 'each', to: 'plus' }] };
    const each = drawnEdges(explicit).filter((edge) => edge.from === 'each' && edge.to === 'plus');
    expect(each).toEqual([{ from: 'each', to: 'plus', kind: 'each', label: 'each' }]);
  });
});

// Renderers take any workflow (a hand-built one skips the file reader's id rules), so ids and values are hostile.
const hostile: ExecutableWorkflow = {
  name: 'evil"]\n%%{init: {"theme":"dark"}}%%\nclick n_start call alert()',
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'a"];click x', kind: 'tool', tool: 'x"] --> y\n<script>&amp;', args: { 'k"': '{% "\\"]" %}' } },
    { id: 'end', kind: 'condition', expr: 'a\nb"} --> evil{"' },
    { id: 'graph', kind: 'set', values: { v: 'line\r\nbreak\u0007\u001b[2J' } },
    { id: 'node\\', kind: 'end', output: '\\"' },
    { id: 'edge', kind: 'end' },
  ],
  edges: [
    { from: 'start', to: 'a"];click x' },
    { from: 'a"];click x', to: 'end' },
    { from: 'end', to: 'graph', when: '" .-> n_start\nclick' },
    { from: 'end', to: 'edge', default: true },
    { from: 'graph', to: 'node\\' },
  ],
};

describe('hostile ids and labels', () => {
  it('Mermaid: one statement per node and per edge, ids encoded, no quote or bracket left inside a label', () => {
    const lines = workflowMermaid(hostile).trimEnd().split('\n');
    expect(lines[0]).toBe('flowchart TD');
    expect(lines[1]).toMatch(/^ {2}%% [^\n{]*$/);
    expect(lines[1]).not.toContain('%%{');
    // A label: anything but quotes, brackets and angle brackets, except the `<br/>` of a line break.
    const label = '"(?:[^"[\\](){}<>\\n]|<br/>)*"';
    const shapes = [
      ['\\(\\[', '\\]\\)'],
      ['\\[', '\\]'],
      ['\\(', '\\)'],
      ['\\{', '\\}'],
      ['\\{\\{', '\\}\\}'],
    ];
    const nodeLine = new RegExp(
      `^ {2}n_[A-Za-z0-9_]+(?:${shapes.map(([open, close]) => `${open}${label}${close}`).join('|')})$`,
    );
    const edgeLine = /^ {2}n_[A-Za-z0-9_]+ (?:-->|-\.->|-\. "[^"<>]*" \.->|-- "[^"<>]*" -->) n_[A-Za-z0-9_]+$/;
    const nodeLines = lines.slice(2, 2 + hostile.nodes.length);
    const edgeLines = lines.slice(2 + hostile.nodes.length);
    for (const line of nodeLines) expect(line).toMatch(nodeLine);
    for (const line of edgeLines) expect(line).toMatch(edgeLine);
    expect(edgeLines).toHaveLength(hostile.edges.length);
    // Labels keep their text, as entity codes: the quote of the id is there, escaped.
    expect(lines.join('\n')).toContain('a#34;#93;;click x');
    expect(lines.join('\n')).not.toContain('\u001b');
  });

  it('DOT: one statement per node and per edge, every label a closed, escaped string', () => {
    const lines = workflowDot(hostile).trimEnd().split('\n');
    const quoted = '"(?:[^"\\\\\\n]|\\\\.)*"';
    const nodeLine = new RegExp(`^ {2}n_[A-Za-z0-9_]+ \\[label=${quoted}, shape=[a-z]+(?:, style=rounded)?\\];$`);
    const edgeLine = new RegExp(
      `^ {2}n_[A-Za-z0-9_]+ -> n_[A-Za-z0-9_]+(?: \\[(?:label=${quoted})?(?:, )?(?:style=dashed)?\\])?;$`,
    );
    expect(lines[1]).toMatch(new RegExp(`^ {2}label=${quoted};$`));
    const body = lines.slice(5, -1);
    expect(body).toHaveLength(hostile.nodes.length + hostile.edges.length);
    for (const line of body.slice(0, hostile.nodes.length)) expect(line).toMatch(nodeLine);
    for (const line of body.slice(hostile.nodes.length)) expect(line).toMatch(edgeLine);
    expect(lines.at(-1)).toBe('}');
    expect(workflowDot(hostile)).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('the listing shows escape sequences inert', () => {
    const listing = workflowListing(hostile);
    expect(listing).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(listing).toContain('\\u001b');
  });

  it('PDL drawings use the same escaping (one escaping function for all drawings)', () => {
    const chart = pdlMermaid({
      name: 'p',
      apis: [{ name: 'x"] --> y[<b>', request: [], response: [], precondition: [] }],
      answers: [],
    });
    expect(chart).toContain('["x#34;#93; --#62; y#91;#60;b#62;"]');
  });
});

describe('values shown', () => {
  it('stay short on huge or deeply nested values', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 5000; level++) deep = { next: deep };
    expect(valueText(deep)).toBe('{next: {next: {next: {next: {…}}}}}');
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    expect(valueText(wide).length).toBeLessThanOrEqual(80);
    expect(nodeDetail({ id: 's', kind: 'set', values: { huge: 'x'.repeat(1_000_000) } }).length).toBeLessThanOrEqual(
      120,
    );
  });
});
