/** Where a run's accepted outputs go: report.md, `runs/<id>/outputs/`, `weft show --output`, the JSON, the result. */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/store/open-store.js';
import { outputFileName } from '../../src/store/run-paths.js';
import { cli, tempHome } from './cli-harness.js';
import { cancelledSimRun } from './seed-home.js';
import { runEvents } from '../../src/run/run-events.js';

interface RunDocument {
  runId: string;
  status: string;
  runDir?: string;
  result?: { from: string[]; text: string } | null;
  tasks: { id: string; status: string; dependsOn: string[]; output?: string | null; outputFile?: string | null }[];
}

/** The accepted output of each subtask, read straight from the event log (the source of truth). */
async function acceptedOutputs(home: string, runId: string): Promise<Map<string, string>> {
  const store = await openRunStore({ home });
  const events = await runEvents(store, runId);
  await store.close();
  const pending = new Map<string, string>();
  const accepted = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'task-end' && event.output !== undefined)
      pending.set(`${event.taskId}#${event.attempt}`, event.output);
    if (event.type === 'task-verify' && event.verdict === 'accept')
      accepted.set(event.taskId, pending.get(`${event.taskId}#${event.attempt}`)!);
  }
  return accepted;
}

async function storyRun(home: string): Promise<RunDocument> {
  const run = await cli([
    'run',
    'write a short story in four parts',
    '--model',
    'sim:seed=4,tasks=4',
    '--home',
    home,
    '--json',
  ]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as RunDocument;
}

describe("a run's outputs are visible", () => {
  it('writes each accepted output to runs/<id>/outputs/<subtask>.md and lists it in report.md', async () => {
    const home = tempHome();
    const { runId } = await storyRun(home);
    const outputs = await acceptedOutputs(home, runId);
    expect(outputs.size).toBe(4);
    const runDir = join(home, 'runs', runId);
    expect(readdirSync(join(runDir, 'outputs')).sort()).toEqual([...outputs.keys()].map((id) => `${id}.md`).sort());
    const report = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(report).toMatch(/^## Outputs$/m);
    for (const [id, output] of outputs) {
      expect(readFileSync(join(runDir, 'outputs', `${id}.md`), 'utf8')).toBe(output);
      expect(report).toMatch(new RegExp(`^### ${id}\\b`, 'm'));
      expect(report).toContain(output.split('\n')[0]!);
    }
  });

  it("weft run --json and weft show --json carry each output and the run's result; the text ends with the result", async () => {
    const home = tempHome();
    const document = await storyRun(home);
    const outputs = await acceptedOutputs(home, document.runId);
    const sinks = document.tasks
      .filter((task) => !document.tasks.some((other) => other.dependsOn.includes(task.id)))
      .map((task) => task.id);
    for (const task of document.tasks) {
      expect(task.output).toBe(outputs.get(task.id));
      expect(task.outputFile).toBe(`outputs/${task.id}.md`);
    }
    expect(document.runDir).toBe(join(home, 'runs', document.runId));
    expect(document).toMatchObject({
      reportFile: join(document.runDir!, 'report.md'),
      artifactsDir: join(document.runDir!, 'artifacts'),
      outputsDir: join(document.runDir!, 'outputs'),
    });
    expect(document.result?.from).toEqual(sinks);
    for (const id of sinks) expect(document.result?.text).toContain(outputs.get(id));

    const shown = JSON.parse((await cli(['show', document.runId, '--home', home, '--json'])).stdout) as RunDocument;
    expect(shown).toEqual(document);

    const text = await cli([
      'run',
      'write a short story in four parts',
      '--model',
      'sim:seed=4,tasks=4',
      '--home',
      home,
    ]);
    expect(text.code).toBe(0);
    const last = outputs.get(sinks.at(-1)!)!;
    expect(text.stdout.trimEnd().endsWith(last.trimEnd())).toBe(true);
    expect(text.stdout).toMatch(/^result \(from t1, t2, t4\):$/m);
  });

  it('weft show --output <subtask> prints that output; an unknown subtask exits 2 naming the known ones', async () => {
    const home = tempHome();
    const { runId } = await storyRun(home);
    const outputs = await acceptedOutputs(home, runId);
    const shown = await cli(['show', runId, '--output', 't3', '--home', home]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(`${outputs.get('t3')}\n`);
    const asJson = JSON.parse((await cli(['show', runId, '--output', 't3', '--home', home, '--json'])).stdout) as {
      id: string;
      output: string;
      outputFile: string;
    };
    expect(asJson).toMatchObject({
      runId,
      id: 't3',
      status: 'completed',
      output: outputs.get('t3'),
      outputFile: `outputs/t3.md`,
    });

    const unknown = await cli(['show', runId, '--output', 'nope', '--home', home]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nope/);
    expect(unknown.stderr).toMatch(/t1, t2, t3, t4/);
    const both = await cli(['show', runId, '--output', 't1', '--mermaid', '--home', home]);
    expect(both.code).toBe(2);
  });

  it("weft show --mermaid colours a completed run's nodes by their final status", async () => {
    const home = tempHome();
    const { runId } = await storyRun(home);
    const mermaid = await cli(['show', runId, '--mermaid', '--home', home]);
    expect(mermaid.code).toBe(0);
    expect(mermaid.stdout).not.toMatch(/notStarted/);
    for (const id of ['t1', 't2', 't3', 't4']) expect(mermaid.stdout).toMatch(new RegExp(`class n_${id} completed`));
  });

  it('weft resume writes the outputs too, including those accepted before the interruption', async () => {
    const home = tempHome();
    const { rmSync } = await import('node:fs');
    const first = await cancelledSimRun(home);
    expect(first.status).toBe('cancelled');
    // As if the process died before writing anything: the log alone must be enough.
    rmSync(join(home, 'runs', first.runId, 'outputs'), { recursive: true, force: true });
    const result = await cli(['resume', first.runId, '--home', home]);
    expect(result.code).toBe(0);
    const outputs = await acceptedOutputs(home, first.runId);
    expect(outputs.size).toBe(6);
    for (const [id, output] of outputs)
      expect(readFileSync(join(home, 'runs', first.runId, 'outputs', `${id}.md`), 'utf8')).toBe(output);
    // Six parts are longer than a screenful: the summary names them and how to print one instead of printing them.
    expect(result.stdout).toMatch(
      new RegExp(`^result: \\d+ lines from t\\d.*; print one with weft show ${first.runId} --output t\\d+$`, 'm'),
    );
    expect(result.stdout).toContain(`outputs: ${join(home, 'runs', first.runId, 'outputs')}/`);
    expect(existsSync(join(home, 'runs', first.runId, 'report.md'))).toBe(true);
  });

  it('keeps an output inside outputs/ whatever the subtask id of a plan file', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({
        task: 'two steps',
        subtasks: [
          { id: '../../escape', objective: 'first', agent: 'writer', dependsOn: [] },
          { id: 'a/b', objective: 'second', agent: 'writer', dependsOn: ['../../escape'] },
        ],
      }),
    );
    const run = await cli(['run', '--plan', plan, '--model', 'sim:seed=2', '--home', home, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const document = JSON.parse(run.stdout) as RunDocument;
    const dir = join(home, 'runs', document.runId, 'outputs');
    expect(readdirSync(dir).sort()).toEqual([outputFileName('../../escape'), outputFileName('a/b')].sort());
    expect(existsSync(join(home, 'escape.md'))).toBe(false);
    expect(document.tasks.map((task) => task.outputFile)).toEqual([
      `outputs/${outputFileName('../../escape')}`,
      `outputs/${outputFileName('a/b')}`,
    ]);
    const shown = await cli(['show', document.runId, '--output', 'a/b', '--home', home]);
    expect(shown.stdout).toBe(`${document.tasks[1]!.output}\n`);
  });
});
