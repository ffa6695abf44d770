/**
 * The FlowAgent authors' own data set, when a copy is at hand: point WEFT_FLOWAGENT_DATASET at the `dataset` folder
 * of a checkout of github.com/Lightblues/FlowAgent. Its sample procedure, tools spec, profiles and OOW taxonomy load
 * unchanged, and a whole simulated session of the procedure runs offline. The repository cannot ship those files
 * (they carry no licence); test/fixtures/flowagent has files of our own in the same formats, tested always.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli as weft } from '../cli/cli-harness.js';
import { jsonDocument } from '../e2e/weft-cli.js';

const DATASET = process.env.WEFT_FLOWAGENT_DATASET;
const PDL = DATASET && join(DATASET, 'sample/pdl/000.yaml');
const ready = PDL !== undefined && existsSync(PDL);
if (!ready)
  console.log(
    DATASET
      ? `FlowAgent data set tests skipped: ${PDL} does not exist`
      : 'FlowAgent data set tests skipped: WEFT_FLOWAGENT_DATASET is not set (the dataset folder of a FlowAgent checkout)',
  );
const scratch = mkdtempSync(join(tmpdir(), 'weft-flowagent-dataset-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!ready)("the FlowAgent authors' data set, unchanged", () => {
  const dir = DATASET ?? '';
  const files = {
    pdl: join(dir, 'sample/pdl/000.yaml'),
    tools: join(dir, 'sample/tools/000.yaml'),
    profiles: join(dir, 'sample/user_profile/000.json'),
    oow: join(dir, 'meta/oow.yaml'),
  };

  it('pdl check passes the sample procedure with its tools spec', async () => {
    const result = await weft(['pdl', 'check', files.pdl, '--tools', files.tools, '--json']);
    expect(result.code, result.stdout).toBe(0);
    expect(jsonDocument(result)).toMatchObject({ ok: true, bindingsChecked: true });
  });

  it('simulate --simulate-apis --oow-taxonomy runs every profile offline, both protocols reported', async () => {
    const result = await weft(
      [
        'simulate',
        files.pdl,
        '--tools',
        files.tools,
        '--profiles',
        files.profiles,
        '--simulate-apis',
        '--oow',
        '0.3',
        '--oow-taxonomy',
        files.oow,
        '--model',
        'sim:seed=1',
        '--user-model',
        'sim:seed=2',
        '--judge',
        'sim:seed=3',
        '--json',
      ],
      { WEFT_HOME: join(scratch, 'home') },
    );
    expect(result.code, result.stderr).toBe(0);
    const document = jsonDocument(result) as { errors: number; perSession: { calledApis: string[] }[]; paper: object };
    expect(document.errors).toBe(0);
    expect(document.perSession.length).toBeGreaterThan(0);
    expect(document.perSession.some((session) => session.calledApis.length > 0)).toBe(true);
    expect(document.paper).toHaveProperty('toolF1');
  });

  it('chat --simulate-apis talks to it', async () => {
    const result = await weft(
      ['chat', files.pdl, '--tools', files.tools, '--simulate-apis', '--model', 'sim:seed=1', '--json'],
      { WEFT_HOME: join(scratch, 'chat') },
      'plan_code: CA1234, estimated_time: 12 o clock on January 7 2199\n/end\n',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('simulated APIs');
  });
});
