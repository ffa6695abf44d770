/** `weft workflow check`, `weft workflow show`, `weft exec` and `weft eval` of workflows, in-process. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './cli-harness.js';

const DIR = 'test/fixtures/workflows';
const SUM = `${DIR}/sum-to-n.workflow.json`;
const EVERY = `${DIR}/every-kind.workflow.json`;
const scratch = mkdtempSync(join(tmpdir(), 'weft-workflow-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('weft workflow check', () => {
  it('says ok for a good workflow and locates every problem of a broken one (exit 2)', async () => {
    const ok = await cli(['workflow', 'check', `${DIR}/sum-to-n.workflow.json`, '--tools', `${DIR}/tools.yaml`]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('sum-to-n.workflow.json: ok');
    const broken = await cli([
      'workflow',
      'check',
      `${DIR}/broken.workflow.yaml`,
      '--tools',
      `${DIR}/tools.yaml`,
      '--json',
    ]);
    expect(broken.code).toBe(2);
    const document = JSON.parse(broken.stdout) as {
      ok: boolean;
      problems: { line: number | null; path: string; message: string }[];
    };
    expect(document.ok).toBe(false);
    const find = (text: string) => document.problems.find((problem) => problem.message.includes(text));
    expect(find('unknown tool "subtract"')).toMatchObject({ line: 4, path: 'nodes[1].tool' });
    expect(find('JSONata syntax error')).toMatchObject({ line: 4, path: 'nodes[1].args.a' });
    expect(find('vars.total is never assigned')).toMatchObject({ line: 5 });
    expect(find('"lost" cannot be reached')).toMatchObject({ line: 6 });
  });
});

describe('weft exec', () => {
  it('runs a workflow on one input with no model', async () => {
    const result = await cli([
      'exec',
      `${DIR}/sum-to-n.workflow.json`,
      '--tools',
      `${DIR}/tools.yaml`,
      '--input',
      '{"n":4}',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ output: 10, steps: 16, toolCalls: 4, llmCalls: 0 });
  });

  it('constructs no model: a configured model that cannot be made does not matter to exec, one input or a batch', async () => {
    // Any model made from this spec fails at once (the replies file is missing): `weft plan` shows it does.
    const env = { WEFT_MODEL: `scripted:${join(scratch, 'no-such-replies.json')}` };
    const planned = await cli(['plan', 'anything', '--home', join(scratch, 'home-plan')], env);
    expect(planned.code).not.toBe(0);
    const one = await cli(['exec', SUM, '--tools', `${DIR}/tools.yaml`, '--input', '{"n":3}', '--json'], env);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ output: 6, llmCalls: 0 });
    const cases = join(scratch, 'no-model-cases.jsonl');
    writeFileSync(cases, '{"id":"a","input":{"n":2},"expected":3}\n{"id":"b","input":{"n":5},"expected":15}\n');
    const batch = await cli(
      ['exec', SUM, '--tools', `${DIR}/tools.yaml`, '--inputs', cases, '--home', join(scratch, 'home-batch'), '--json'],
      env,
    );
    expect(batch.code, batch.stderr).toBe(0);
    expect(JSON.parse(batch.stdout)).toMatchObject({ cases: 2, passed: 2 });
  });

  it('refuses input that breaks the inputs schema, and a broken workflow, with exit 2', async () => {
    const bad = await cli([
      'exec',
      `${DIR}/sum-to-n.workflow.json`,
      '--tools',
      `${DIR}/tools.yaml`,
      '--input',
      '{"n":-1}',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('input');
    const notJson = await cli(['exec', `${DIR}/sum-to-n.workflow.json`, '--input', '{n:']);
    expect(notJson.code).toBe(2);
    const broken = await cli(['exec', `${DIR}/broken.workflow.yaml`, '--tools', `${DIR}/tools.yaml`]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.workflow\.yaml:4:\d+/);
  });
});

describe('weft exec --max-visits', () => {
  const tools = `${DIR}/tools.yaml`;
  it('stops a long finite loop at the cap, naming the cap, the node and the flag; a higher cap lets it finish', async () => {
    const low = await cli(['exec', SUM, '--tools', tools, '--input', '{"n":60}', '--max-visits', '50', '--json']);
    expect(low.code).not.toBe(0);
    const error = JSON.parse(low.stdout).error as { message: string; field?: string };
    expect(error.message).toMatch(/^node \S+: stopped at the visit cap of 50 node visits/);
    expect(error.message).toContain('a long finite loop: raise the cap (--max-visits N on the command line');
    const high = await cli(['exec', SUM, '--tools', tools, '--input', '{"n":60}', '--max-visits', '1000', '--json']);
    expect(high.code, high.stderr).toBe(0);
    expect(JSON.parse(high.stdout)).toMatchObject({ output: 1830 });
  });

  it('applies to a batch, is kept for its resume, and a bad value is exit 2 naming the flag', async () => {
    const cases = join(scratch, 'visit-cases.jsonl');
    writeFileSync(
      cases,
      '{"id":"short","input":{"n":2},"expected":3}\n{"id":"long","input":{"n":60},"expected":1830}\n',
    );
    const home = join(scratch, 'home-visits');
    const batch = await cli([
      'exec',
      SUM,
      '--tools',
      tools,
      '--inputs',
      cases,
      '--max-visits',
      '50',
      '--home',
      home,
      '--json',
    ]);
    expect(batch.code).toBe(1);
    const summary = JSON.parse(batch.stdout);
    expect(summary).toMatchObject({ cases: 2, passed: 1, errors: 1 });
    const long = summary.results.find((result: { id: string }) => result.id === 'long');
    expect(long.error.message).toContain('visit cap of 50');
    const other = await cli(['exec', '--resume', summary.batchId, '--max-visits', '99', '--home', home]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('the batch was started with --max-visits 50');
    for (const value of ['0', 'many', '1.5']) {
      const bad = await cli(['exec', SUM, '--tools', tools, '--input', '{"n":2}', '--max-visits', value]);
      expect(bad.code, value).toBe(2);
      expect(bad.stderr, value).toContain('--max-visits expects an integer >= 1');
    }
  });

  it('--time-limit stops a hostile case alone in a batch, naming node and field; a bad value is exit 2', async () => {
    const file = join(scratch, 'hostile.workflow.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'hostile',
        inputs: { n: { type: 'integer' } },
        nodes: [
          { id: 's', kind: 'start' },
          { id: 'big', kind: 'condition', expr: '{% inputs.n > 100 %}' },
          { id: 'sort', kind: 'end', output: '{% $sort([1..inputs.n], function($a, $b){ $a < $b }) %}' },
          { id: 'small', kind: 'end', output: '{% inputs.n * 2 %}' },
        ],
        edges: [
          { from: 's', to: 'big' },
          { from: 'big', to: 'sort', when: true },
          { from: 'big', to: 'small', default: true },
        ],
      }),
    );
    const cases = join(scratch, 'hostile-cases.jsonl');
    writeFileSync(
      cases,
      '{"id":"a","input":{"n":2},"expected":4}\n{"id":"hostile","input":{"n":1000000}}\n{"id":"b","input":{"n":5},"expected":10}\n',
    );
    const home = join(scratch, 'home-hostile');
    const batch = await cli(['exec', file, '--inputs', cases, '--time-limit', '300', '--home', home, '--json']);
    expect(batch.code).toBe(1);
    const summary = JSON.parse(batch.stdout);
    expect(summary).toMatchObject({ cases: 3, passed: 2, errors: 1 });
    const hostile = summary.results.find((result: { id: string }) => result.id === 'hostile');
    expect(hostile.error.message).toContain("node sort (output): stopped at the case's time limit of 300 ms");
    // One worker thread (--jobs 1): the same results, the hostile case stopped alone.
    const one = await cli([
      'exec',
      file,
      '--inputs',
      cases,
      '--time-limit',
      '300',
      '--jobs',
      '1',
      '--home',
      home,
      '--json',
    ]);
    expect(JSON.parse(one.stdout)).toMatchObject({ cases: 3, passed: 2, errors: 1 });
    for (const [flag, value] of [
      ['--time-limit', '0'],
      ['--worker-memory', 'lots'],
      ['--jobs', '0'],
      ['--jobs', '1000'],
    ] as const) {
      const bad = await cli(['exec', file, '--input', '{"n":2}', flag, value]);
      expect(bad.code, flag).toBe(2);
      expect(bad.stderr, flag).toContain(`${flag} expects an integer`);
    }
  });
});

describe('the every-kind fixture', () => {
  it('is a valid workflow that runs each branch', async () => {
    const check = await cli(['workflow', 'check', EVERY, '--tools', `${DIR}/tools.yaml`]);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toContain('every-kind.workflow.json: ok');
    const run = async (xs: number[]) => {
      const result = await cli([
        'exec',
        EVERY,
        '--tools',
        `${DIR}/tools.yaml`,
        '--input',
        JSON.stringify({ xs }),
        '--json',
      ]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { output: unknown }).output;
    };
    expect(await run([5, 20, 100])).toEqual({ size: 'big', total: 125 });
    expect(await run([5, 20])).toEqual({ size: 'medium', partials: [5, 25] });
    expect(await run([])).toEqual({ size: 'small', total: 0 });
  });
});

describe('weft workflow show', () => {
  it('lists nodes with their essentials, then edges with their labels', async () => {
    const result = await cli(['workflow', 'show', EVERY]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      'size_of_total — Adds up a list with the add tool, then sorts the total into big, medium or small.',
    );
    expect(lines).toContain('  plus    tool       add(a: vars.total, b: vars.x) → total');
    expect(lines).toContain(
      '  each    forEach    for each x in inputs.xs, body plus, collect vars.total, into partials',
    );
    expect(lines).toContain('  size → big  when "big"');
    expect(lines).toContain('  size → small  otherwise');
    expect(lines).toContain('  each → plus  (each item)');
  });

  it('draws Mermaid, DOT and WorfBench text, and puts the one asked for in the --json document', async () => {
    const mermaid = await cli(['workflow', 'show', SUM, '--mermaid']);
    expect(mermaid.stdout.startsWith('flowchart TD\n')).toBe(true);
    expect(mermaid.stdout).toContain('  n_more -. "false" .-> n_end\n');
    const dot = await cli(['workflow', 'show', SUM, '--dot']);
    expect(dot.stdout).toContain('  n_more -> n_add [label="true", style=dashed];\n');
    expect(dot.stdout.endsWith('}\n')).toBe(true);
    const worf = await cli(['workflow', 'show', SUM, '--worfbench']);
    expect(worf.stdout).toBe(
      'Node:\n1: Check whether i < n\n2: Call add with a and b\nEdge: (START,1) (1,2) (1,END) (2,END)\n',
    );
    const json = await cli(['workflow', 'show', SUM, '--mermaid', '--json']);
    const document = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(Object.keys(document)).toEqual(['name', 'nodes', 'edges', 'mermaid']);
    expect(document.mermaid).toBe(mermaid.stdout);
    expect((document.nodes as unknown[]).length).toBe(6);
    const plain = JSON.parse((await cli(['workflow', 'show', SUM, '--json'])).stdout) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(['name', 'nodes', 'edges']);
  });

  it('prints escape sequences and bidi overrides from the file inert, in every view', async () => {
    const file = join(scratch, 'escapes.workflow.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'clear\u001b[2J\u202e',
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'call', kind: 'tool', tool: 'wipe\u001b[2J\u009b\u202e' },
          { id: 'end', kind: 'end' },
        ],
        edges: [
          { from: 'start', to: 'call' },
          { from: 'call', to: 'end' },
        ],
      }),
    );
    for (const view of [[], ['--mermaid'], ['--dot'], ['--worfbench']]) {
      const result = await cli(['workflow', 'show', file, ...view]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
    }
    expect((await cli(['workflow', 'show', file, '--worfbench'])).stdout).toContain(
      '1: Call wipe\\u001b[2J\\u009b\\u202e',
    );
  });

  it('refuses two views at once, and a broken or missing file, with exit 2', async () => {
    const two = await cli(['workflow', 'show', SUM, '--mermaid', '--dot']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('choose one of --mermaid, --dot and --worfbench');
    const broken = await cli(['workflow', 'show', `${DIR}/broken.workflow.yaml`]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.workflow\.yaml:4:\d+/);
    const missing = await cli(['workflow', 'show', `${DIR}/nope.workflow.json`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });
});

describe('weft eval of executable workflows', () => {
  interface PairDocument {
    similarity: string;
    f1_chain: number;
    f1_graph: number;
    p_chain: number;
    gold: { file: string; steps: number; text: string };
    predicted: { steps: number };
  }

  it('scores a workflow against itself 1, and a changed one less', async () => {
    const self = await cli(['eval', EVERY, '--gold', EVERY, '--json']);
    expect(self.code, self.stderr).toBe(0);
    const same = JSON.parse(self.stdout) as PairDocument;
    expect(same).toMatchObject({ f1_chain: 1, f1_graph: 1, gold: { file: EVERY, steps: 2 }, predicted: { steps: 2 } });
    expect(same.similarity).toMatch(/^lexical/);

    // The reference with one more step on the way out (YAML, to read that form too).
    const reference = JSON.parse(readFileSync(SUM, 'utf8')) as {
      nodes: unknown[];
      edges: { when?: unknown; to: string }[];
    };
    reference.nodes.push({ id: 'notify', kind: 'tool', tool: 'send_email', args: { to: 'x' } });
    reference.edges = reference.edges.map((edge) => (edge.when === false ? { ...edge, to: 'notify' } : edge));
    reference.edges.push({ from: 'notify', to: 'end' } as never);
    const changed = join(scratch, 'changed.workflow.yaml');
    writeFileSync(changed, JSON.stringify(reference));
    const other = JSON.parse((await cli(['eval', changed, '--gold', SUM, '--json'])).stdout) as PairDocument;
    expect(other.p_chain).toBeCloseTo(2 / 3, 10);
    expect(other.f1_chain).toBeCloseTo(0.8, 10);
    expect(other.f1_graph).toBeLessThan(1);

    const text = await cli(['eval', changed, '--gold', SUM]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`gold: ${SUM} (sum_to_n, 2 steps); predicted: ${changed} (sum_to_n, 3 steps)`);
    expect(text.stdout).toMatch(/^chain +0\.6667 +1\.0000 +0\.8000$/m);
    expect(text.stdout).toContain('not comparable to the paper');
  });

  it('refuses a workflow scored against WorfBench gold, and a workflow with no step, with exit 2', async () => {
    const mixed = await cli(['eval', SUM, '--gold', 'test/fixtures/worfbench/os.json']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain(
      `os.json --gold: not an executable workflow (a .json or .yaml file with "nodes"), while ${SUM} is one`,
    );
    const empty = join(scratch, 'empty.workflow.json');
    writeFileSync(
      empty,
      JSON.stringify({
        name: 'empty',
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'end', kind: 'end', output: 1 },
        ],
        edges: [{ from: 'start', to: 'end' }],
      }),
    );
    const none = await cli(['eval', empty, '--gold', SUM]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('empty.workflow.json');
    expect(none.stderr).toContain('the predicted workflow has no tool or condition step');
    // A reference that does not even parse: its syntax error, located, not "not a workflow".
    const typo = join(scratch, 'typo.workflow.json');
    writeFileSync(typo, '{\n  "name": "x",\n  "nodes": [,]\n}\n');
    const syntax = await cli(['eval', SUM, '--gold', typo]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/typo\.workflow\.json:3:\d+.*invalid JSON/);
    const broken = await cli(['eval', `${DIR}/broken.workflow.yaml`, '--gold', SUM]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.workflow\.yaml:4:\d+/);
  });
});
