/** `weft distill --out` pointed somewhere careless: its own inputs, links, folders; an existing file is replaced. */
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './cli-harness.js';

const W = 'test/fixtures/workflows';
const TRACES_TEXT = readFileSync('test/fixtures/distill/sum-to-n.traces.jsonl', 'utf8');
const MODEL = `sim:reference=${W}/sum-to-n.workflow.json`;

function setUp() {
  const home = mkdtempSync(join(tmpdir(), 'weft-distill-out-'));
  const traces = join(home, 'traces.jsonl');
  writeFileSync(traces, TRACES_TEXT);
  const distill = (out: string) =>
    cli(['distill', '--traces', traces, '--tools', `${W}/tools.yaml`, '--out', out, '--home', home, '--model', MODEL]);
  return { home, traces, distill };
}

describe('weft distill --out', () => {
  it('refuses to write over the --traces file, also through a link, and leaves it whole', async () => {
    const { home, traces, distill } = setUp();
    const direct = await distill(traces);
    expect(direct.code).toBe(2);
    expect(direct.stderr).toContain('it is the --traces file');
    const link = join(home, 'workflow.json');
    symlinkSync(traces, link);
    const linked = await distill(link);
    expect(linked.code).toBe(2);
    expect(readFileSync(traces, 'utf8')).toBe(TRACES_TEXT);
  });

  it('refuses a link that loops or leads nowhere before any model call, with exit 2 and no stack trace', async () => {
    const { home, distill } = setUp();
    symlinkSync(join(home, 'b.json'), join(home, 'a.json'));
    symlinkSync(join(home, 'a.json'), join(home, 'b.json'));
    symlinkSync(join(home, 'missing', 'x.json'), join(home, 'dangling.json'));
    for (const [name, reason] of [
      ['a.json', 'a symbolic link that loops'],
      ['dangling.json', 'a symbolic link to a file in no folder, or to nothing'],
    ] as const) {
      const result = await distill(join(home, name));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(reason);
      expect(result.stderr).not.toContain('    at ');
    }
  });

  it('replaces an existing file whole, keeping its permissions, a link at the name and no temporary file', async () => {
    const { home, distill } = setUp();
    const target = join(home, 'target.json');
    writeFileSync(target, 'old content that is longer than nothing');
    chmodSync(target, 0o640);
    const link = join(home, 'link.json');
    symlinkSync(target, link);
    const result = await distill(link);
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ name: 'sum_to_n' });
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(readdirSync(home).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a trace id that is not one before opening the store, quoted and cut, never echoed raw', async () => {
    const { home } = setUp();
    const distill = (id: string) =>
      cli([
        'distill',
        id,
        '--tools',
        `${W}/tools.yaml`,
        '--out',
        join(home, 'w.json'),
        '--home',
        home,
        '--model',
        MODEL,
      ]);
    const hostile = await distill('../../x\u001b[2J');
    expect(hostile.code).toBe(2);
    expect(hostile.stderr).not.toContain('\u001b');
    expect(hostile.stderr).toContain('"../../x\\u001b[2J" is not a trace id');
    const long = await distill('a'.repeat(10_000));
    expect(long.code).toBe(2);
    expect(long.stderr.length).toBeLessThan(400);
  });
});
