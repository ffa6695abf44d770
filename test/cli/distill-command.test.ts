/** `weft distill`: traces from a file, the sim summarizer, the partial graph, located bad input. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './cli-harness.js';

const W = 'test/fixtures/workflows';
const TRACES = 'test/fixtures/distill/sum-to-n.traces.jsonl';
const reference = `${W}/sum-to-n.workflow.json`;
const dir = () => mkdtempSync(join(tmpdir(), 'weft-distill-'));
const base = (home: string, out: string) => [
  'distill',
  '--traces',
  TRACES,
  '--tools',
  `${W}/tools.yaml`,
  '--out',
  out,
  '--home',
  home,
];

describe('weft distill', () => {
  it('summarizes traces from a file with the sim into a workflow that weft exec runs', async () => {
    const home = dir();
    const out = join(home, 'workflow.json');
    const result = await cli([...base(home, out), '--model', `sim:reference=${reference}`, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(document).toMatchObject({
      out,
      finished: true,
      valid: true,
      problems: [],
      mixedCalls: 0,
      graphCalls: 13,
      simulated: true,
    });
    expect(document['steps']).toBe(6);
    expect((document['usage'] as { calls: number }).calls).toBe(6);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(readFileSync(reference, 'utf8')));
    const exec = await cli(['exec', out, '--tools', `${W}/tools.yaml`, '--input', '{"n":5}', '--json']);
    expect(JSON.parse(exec.stdout)).toMatchObject({ output: 15, llmCalls: 0 });
  });

  it('reads traces as a JSON document ({ traces: [...] }) and selects all successful ones', async () => {
    const home = dir();
    const lines = readFileSync(TRACES, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const file = join(home, 'traces.json');
    writeFileSync(file, JSON.stringify({ traces: lines }, null, 2));
    const out = join(home, 'w.json');
    const result = await cli([
      ...base(home, out).map((arg) => (arg === TRACES ? file : arg)),
      '--selection',
      'all_success',
      '--model',
      `sim:reference=${reference}`,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      finished: true,
      traces: ['t-20261125-060000-aaaa', 't-20261125-060001-bbbb'],
    });
  });

  it('saves the partial graph with exit 1 when the summarizer never finishes', async () => {
    const home = dir();
    const out = join(home, 'wf.json');
    const result = await cli([
      ...base(home, out),
      '--model',
      `sim:reference=${reference},mistake=1,seed=3`,
      '--strategy',
      'react',
      '--max-steps',
      '6',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`wrote the partial graph to ${join(home, 'wf.partial.json')}`);
    expect(result.stderr).toContain('the workflow is unfinished: no finish after 6 model calls');
    const partial = JSON.parse(readFileSync(join(home, 'wf.partial.json'), 'utf8')) as { nodes: unknown[] };
    expect(partial.nodes.length).toBeGreaterThan(0);
  });

  it('refuses bad input with exit 2: a broken traces file (located), a bad flag, no traces, an unknown trace id', async () => {
    const home = dir();
    const broken = join(home, 'broken.jsonl');
    writeFileSync(
      broken,
      '{"traceId":"t-1","task":"x","mode":"walk","model":"m","input":{},"calls":[],"success":true,"usage":{"calls":1,"inputTokens":0,"outputTokens":0}}\n{oops\n',
    );
    const bad = await cli([
      'distill',
      '--traces',
      broken,
      '--tools',
      `${W}/tools.yaml`,
      '--out',
      join(home, 'o.json'),
      '--model',
      'sim:',
      '--home',
      home,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${broken}:1:1 mode`);
    expect(bad.stderr).toContain(`${broken}:2:`);
    const flag = await cli([...base(home, join(home, 'o.json')), '--model', 'sim:', '--strategy', 'guess']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--strategy must be one of react, plan-execute');
    const none = await cli([
      'distill',
      '--tools',
      `${W}/tools.yaml`,
      '--out',
      join(home, 'o.json'),
      '--home',
      home,
      '--model',
      'sim:',
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the trace ids to summarize');
    const junk = join(home, 'junk.json');
    writeFileSync(junk, Buffer.from([0, 1, 2, 255, 254, 0x7b, 0x7b]));
    const binary = await cli([
      'distill',
      '--traces',
      junk,
      '--tools',
      `${W}/tools.yaml`,
      '--out',
      join(home, 'o.json'),
      '--home',
      home,
      '--model',
      'sim:',
    ]);
    expect(binary.code).toBe(2);
    expect(binary.stderr).toContain(junk);
    const noReference = await cli([...base(home, join(home, 'o.json')), '--model', 'sim:']);
    expect(noReference.code).toBe(2);
    expect(noReference.stderr).toContain('--model sim:reference=FILE');
    const noFolder = await cli([...base(home, join(home, 'missing', 'o.json')), '--model', 'sim:']);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toContain('no folder');
    const unknown = await cli([
      'distill',
      't-20260101-000000-00000000',
      '--tools',
      `${W}/tools.yaml`,
      '--out',
      join(home, 'o.json'),
      '--home',
      home,
      '--model',
      'sim:',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No trace "t-20260101-000000-00000000"|does not keep traces/);
  });
});
