import { describe, expect, it } from 'vitest';
import { escapeDotLabel, escapeMermaidLabel, graphNodeId } from '../../src/graph/export-graph.js';
import { toDot, toMermaid, workflowFromJson } from '../../src/graph/index.js';

const workflow = workflowFromJson({
  task: 't',
  subtasks: [
    { id: 'plan', objective: 'Make a plan', agent: 'w', dependsOn: [], status: 'completed' },
    { id: 'end', objective: 'Say "hi" [now]\nthen <b>#1</b>', agent: 'w', dependsOn: ['plan'], status: 'in progress' },
    { id: 'write-up', objective: 'C:\\temp {x} (y) | z', agent: 'w', dependsOn: ['plan', 'end'] },
  ],
});

describe('graphNodeId', () => {
  it('keeps letters and digits and encodes everything else, one-to-one', () => {
    expect(graphNodeId('plan2')).toBe('n_plan2');
    expect(graphNodeId('end')).toBe('n_end');
    expect(graphNodeId('a-b')).toBe('n_a_2d_b');
    expect(graphNodeId('a_b')).toBe('n_a_5f_b');
    expect(graphNodeId('a 2d b')).toBe('n_a_20_2d_20_b');
    expect(graphNodeId('é')).toBe('n__e9_');
    expect(graphNodeId('😀')).toBe('n__1f600_');
  });
});

describe('toMermaid', () => {
  it('writes a top-down flowchart with escaped labels', () => {
    expect(toMermaid(workflow)).toBe(
      [
        'flowchart TD',
        '  n_plan["plan: Make a plan"]',
        '  n_end["end: Say #34;hi#34; #91;now#93;<br/>then #60;b#62;#35;1#60;/b#62;"]',
        '  n_write_2d_up["write-up: C:#92;temp #123;x#125; #40;y#41; #124; z"]',
        '  n_plan --> n_end',
        '  n_plan --> n_write_2d_up',
        '  n_end --> n_write_2d_up',
        '',
      ].join('\n'),
    );
  });

  it('adds a class per status when asked, defining only the statuses used', () => {
    const lines = toMermaid(workflow, { statuses: true }).trimEnd().split('\n');
    expect(lines.slice(7)).toStrictEqual([
      '  classDef notStarted fill:#f4f4f4,stroke:#9e9e9e',
      '  classDef inProgress fill:#fff4cc,stroke:#d4a017',
      '  classDef completed fill:#d9f2d9,stroke:#2e7d32',
      '  class n_plan completed',
      '  class n_end inProgress',
      '  class n_write_2d_up notStarted',
    ]);
    expect(toMermaid(workflow)).not.toContain('class');
  });
});

describe('toDot', () => {
  it('writes a digraph with escaped labels', () => {
    expect(toDot(workflow)).toBe(
      [
        'digraph workflow {',
        '  rankdir=TB;',
        '  node [shape=box];',
        '  n_plan [label="plan: Make a plan"];',
        '  n_end [label="end: Say \\"hi\\" [now]\\nthen <b>#1</b>"];',
        '  n_write_2d_up [label="write-up: C:\\\\temp {x} (y) | z"];',
        '  n_plan -> n_end;',
        '  n_plan -> n_write_2d_up;',
        '  n_end -> n_write_2d_up;',
        '}',
        '',
      ].join('\n'),
    );
  });
});

describe('label escaping', () => {
  it('turns line breaks of every style into one break and control characters into spaces', () => {
    expect(escapeMermaidLabel('a\r\nb\rc\nd\te')).toBe('a<br/>b<br/>c<br/>d e');
    expect(escapeDotLabel('a\r\nb\rc\nd\te')).toBe('a\\nb\\nc\\nd e');
  });
});

describe('toMermaid label length', () => {
  it('cuts long objectives with an ellipsis when asked, and only then', () => {
    const long = workflowFromJson({
      task: 't',
      subtasks: [{ id: 'a', objective: 'x'.repeat(100), agent: 'w', dependsOn: [] }],
    });
    expect(toMermaid(long, { maxLabelLength: 10 })).toContain(`a: ${'x'.repeat(9)}…`);
    expect(toMermaid(long)).toContain(`a: ${'x'.repeat(100)}`);
  });
});
