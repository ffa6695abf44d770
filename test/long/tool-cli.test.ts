/** `weft run --tools` end to end: a real CLI process, a real tools file, the order service counting requests. */
import { describe, expect, it } from 'vitest';
import { useOrderServer } from '../run/tool-fixtures.js';
import { ORDERS_MODEL, orderRunFiles } from '../e2e/tool-cli-setup.js';
import { jsonDocument, weft } from '../e2e/weft-cli.js';

const server = useOrderServer();

describe('weft run --tools', () => {
  it('runs the plan with its tools; --json counts them; show lists each call; the token is never printed', async () => {
    const files = orderRunFiles(server().url, ['a', 'b']);
    const run = await weft([
      'run',
      '--plan',
      files.plan,
      '--tools',
      files.tools,
      '--model',
      ORDERS_MODEL,
      '--home',
      files.home,
      '--json',
    ]);
    const document = jsonDocument(run);
    expect(run.code, run.stderr).toBe(0);
    expect(document.toolCalls).toBe(4);
    expect(server().counts.get('POST /orders')).toBe(2);
    const tasks = document.tasks as { id: string; output: string }[];
    expect(tasks.find((task) => task.id === 'b')?.output).toMatch(/^order \d for b: placed$/);
    expect(run.stderr).toMatch(/tool create_order for a #1: ok/);

    const show = await weft(['show', String(document.runId), '--home', files.home]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('4 tool calls');
    expect(show.stdout).toMatch(
      /tool \(attempt 1\) create_order \{"item":"a"\} → ok \d+ ms: \{"id":\d,"item":"a","status":"placed"\}/,
    );
    expect(`${run.stdout}${run.stderr}${show.stdout}`).not.toContain('s3cret');
  }, 60_000);

  it('a plan role naming a tool the file lacks: exit 2 naming the plan file and field, before any request', async () => {
    const files = orderRunFiles(server().url, ['a']);
    const { writeFileSync, readFileSync } = await import('node:fs');
    writeFileSync(files.plan, readFileSync(files.plan, 'utf8').replace('"get_order"', '"get_orders"'));
    const run = await weft([
      'run',
      '--plan',
      files.plan,
      '--tools',
      files.tools,
      '--model',
      ORDERS_MODEL,
      '--home',
      files.home,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${files.plan} roles.clerk.tools[1]: Role "clerk" names unknown tool "get_orders"`);
    expect(server().counts.size).toBe(0);
  }, 60_000);

  it('refuses bad tool flags with exit 2', async () => {
    const files = orderRunFiles(server().url, ['a']);
    const steps = await weft([
      'run',
      '--plan',
      files.plan,
      '--tools',
      files.tools,
      '--max-tool-steps',
      '0',
      '--model',
      ORDERS_MODEL,
      '--home',
      files.home,
    ]);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toContain('--max-tool-steps');
  }, 60_000);

  it('a plan may carry its own tools section: used, recorded for resume, and a name also in --tools is refused', async () => {
    const files = orderRunFiles(server().url, ['a']);
    const { readFileSync, writeFileSync } = await import('node:fs');
    const { stringify } = await import('yaml');
    const { openRunStore } = await import('../../src/store/open-store.js');
    const planWithTools = files.plan.replace(/\.json$/, '-with-tools.yaml');
    writeFileSync(
      planWithTools,
      `${readFileSync(files.tools, 'utf8')}${stringify(JSON.parse(readFileSync(files.plan, 'utf8')))}`,
    );

    const run = await weft(['run', '--plan', planWithTools, '--model', ORDERS_MODEL, '--home', files.home, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonDocument(run).toolCalls).toBe(2);
    expect(server().counts.get('POST /orders')).toBe(1);
    const store = await openRunStore({ home: files.home });
    const [stored] = await store.listRuns();
    const record = await store.getRun(stored!.runId);
    await store.close();
    expect(record?.options).toMatchObject({ planToolsFile: planWithTools });
    expect(record?.options).not.toHaveProperty('toolsFile');

    const clash = await weft([
      'run',
      '--plan',
      planWithTools,
      '--tools',
      files.tools,
      '--model',
      ORDERS_MODEL,
      '--home',
      files.home,
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('tool "create_order" is defined twice: http POST');
    expect(server().counts.get('POST /orders')).toBe(1);
  }, 60_000);
});
