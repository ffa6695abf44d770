/**
 * A run of more than OUTPUT_FILES_LIMIT accepted outputs keeps them in one file, `outputs/@all.md`, written when
 * the run settles: its layout, the switch between the two layouts, the links to it, and its rebuild on resume.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../../src/cli/run/run-command.js';
import { workflowFromJson } from '../../src/graph/parse-workflow.js';
import { renderAllOutputs } from '../../src/run/all-outputs.js';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { runEvents } from '../../src/run/run-events.js';
import { runTask } from '../../src/run/run-task.js';
import { SubtaskOutputs } from '../../src/run/subtask-outputs.js';
import { openRunStore } from '../../src/store/open-store.js';
import {
  ALL_OUTPUTS_FILE,
  OUTPUT_FILES_LIMIT,
  outputAnchor,
  outputFileName,
  outputFilePath,
  runPaths,
} from '../../src/store/run-paths.js';
import type { EventRecord } from '../../src/store/run-store.js';
import { testModel } from './test-model.js';

function temp(): string {
  return mkdtempSync(join(tmpdir(), 'weft-all-outputs-'));
}

/** `count` outputs in plan order: t0, t1, ... with one hostile id and one output holding a fence. */
function manyOutputs(count: number): { id: string; output: string }[] {
  return Array.from({ length: count }, (_, index) => ({
    id: index === 1 ? 'a/b' : `t${index}`,
    output: index === 2 ? 'before\n```\ninside\n```\nafter' : `output ${index}`,
  }));
}

/** The text of each section of an @all.md, by anchor, as a reader would cut it out. */
function sections(text: string): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /<a id="([^"]+)"><\/a>\n\n## [^\n]*\n\n(`{3,})text\n([\s\S]*?)\n\2\n/g;
  for (const match of text.matchAll(pattern)) found.set(match[1]!, match[3]!);
  return found;
}

describe('renderAllOutputs', () => {
  it('gives each output its own anchored, fenced section in plan order, whatever the output holds', () => {
    const outputs = manyOutputs(4);
    const text = renderAllOutputs(outputs);
    const found = sections(text);
    expect([...found.keys()]).toEqual(outputs.map((entry) => outputAnchor(entry.id)));
    for (const entry of outputs) expect(found.get(outputAnchor(entry.id))).toBe(entry.output);
    // A hostile id is quoted in its heading; its anchor is the safe file stem.
    expect(text).toContain(`<a id="${outputFileName('a/b').slice(0, -3)}"></a>\n\n## "a/b"\n`);
    expect(text).toContain('## t0\n');
  });
});

describe('outputFilePath', () => {
  it('names a file of its own up to the limit and a section of @all.md past it', () => {
    expect(outputFilePath('t1', OUTPUT_FILES_LIMIT)).toBe('outputs/t1.md');
    expect(outputFilePath('t1', OUTPUT_FILES_LIMIT + 1)).toBe(`outputs/${ALL_OUTPUTS_FILE}#t1`);
    expect(outputFilePath('a/b', OUTPUT_FILES_LIMIT + 1)).toBe(`outputs/${ALL_OUTPUTS_FILE}#${outputAnchor('a/b')}`);
    expect(outputAnchor('a/b')).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('SubtaskOutputs past the limit', () => {
  it('settles a run of more outputs than the limit as one file, and back to one file each when it has fewer', async () => {
    const dir = join(temp(), 'outputs');
    const writer = new SubtaskOutputs(dir);
    await writer.write('t0', 'written while running');
    mkdirSync(join(dir, 'keep-me'));
    writeFileSync(join(dir, 'notes.txt'), 'not an output');
    const outputs = manyOutputs(OUTPUT_FILES_LIMIT + 1);
    await writer.settle(outputs);
    // The file written while running is gone: the folder has one layout only. What is not an output stays.
    expect(readdirSync(dir).sort()).toEqual([ALL_OUTPUTS_FILE, 'keep-me', 'notes.txt'].sort());
    const found = sections(readFileSync(join(dir, ALL_OUTPUTS_FILE), 'utf8'));
    expect(found.size).toBe(outputs.length);
    for (const entry of outputs) expect(found.get(outputAnchor(entry.id))).toBe(entry.output);

    // A resumed run whose plan update left fewer outputs: one file each again, and @all.md is removed.
    await new SubtaskOutputs(dir).settle(outputs.slice(0, 3));
    expect(readdirSync(dir).sort()).toEqual(
      [...outputs.slice(0, 3).map((entry) => outputFileName(entry.id)), 'keep-me', 'notes.txt'].sort(),
    );
    expect(readFileSync(join(dir, outputFileName('a/b')), 'utf8')).toBe('output 1');
  });

  it('writes no output on its own for a plan larger than the limit, nor past the limit of files written', async () => {
    const dir = join(temp(), 'outputs');
    const large = new SubtaskOutputs(dir);
    large.planned(OUTPUT_FILES_LIMIT + 1);
    await large.write('t0', 'x');
    expect(existsSync(join(dir, 't0.md'))).toBe(false);

    const small = new SubtaskOutputs(dir);
    small.planned(3);
    await Promise.all(
      Array.from({ length: OUTPUT_FILES_LIMIT + 1 }, (_, index) => small.write(`t${index}`, `output ${index}`)),
    );
    const files = readdirSync(dir);
    expect(files).toHaveLength(OUTPUT_FILES_LIMIT);
    expect(files).not.toContain(`t${OUTPUT_FILES_LIMIT}.md`);
    // A subtask that already has a file still gets its later output there.
    await small.write('t0', 'again');
    expect(readFileSync(join(dir, 't0.md'), 'utf8')).toBe('again');
    await small.close();
  });
});

describe('a run of more outputs than the limit', () => {
  const plan = workflowFromJson({
    task: 'many small parts',
    subtasks: Array.from({ length: OUTPUT_FILES_LIMIT + 2 }, (_, index) => ({
      id: `t${index}`,
      objective: `part ${index}`,
      agent: 'writer',
      dependsOn: index === 0 ? [] : ['t0'],
    })),
  });

  it('links report.md and the JSON into @all.md, and a resume rebuilds the file from the log alone', async () => {
    const home = temp();
    const store = await openRunStore({ home });
    const first = await runTask({ task: plan.task, plan, model: testModel(), store, home, runId: 'big' });
    expect(first.status).toBe('completed');
    const paths = runPaths(home, 'big');
    expect(readdirSync(paths.outputs)).toEqual([ALL_OUTPUTS_FILE]);
    const report = readFileSync(paths.report, 'utf8');
    expect(report).toContain(`File: \`outputs/${ALL_OUTPUTS_FILE}#t7\``);
    expect(runJson({ ...first, runDir: paths.dir }).tasks[7]!.outputFile).toBe(`outputs/${ALL_OUTPUTS_FILE}#t7`);

    // As if the process were killed halfway: the log up to the 500th accepted output, and no folder at all.
    const events = await runEvents(store, 'big');
    const versions = await store.planVersions('big');
    await store.close();
    const crashedHome = temp();
    const crashed = await openRunStore({ home: crashedHome });
    const start = events[0] as Extract<WeftEvent, { type: 'run-start' }>;
    await crashed.createRun({ runId: 'big', task: plan.task, model: 'test:model', options: start.options });
    const accepts = events.flatMap((event, index) =>
      event.type === 'task-verify' && event.verdict === 'accept' ? [index] : [],
    );
    const cut = accepts[499]! + 1;
    await crashed.appendEvents('big', events.slice(0, cut) as unknown as EventRecord[]);
    for (const version of versions) await crashed.savePlanVersion(version);
    const resumed = await resumeRun({ runId: 'big', model: testModel(), store: crashed, home: crashedHome });
    await crashed.close();
    expect(resumed.status).toBe('completed');
    const found = sections(readFileSync(join(runPaths(crashedHome, 'big').outputs, ALL_OUTPUTS_FILE), 'utf8'));
    expect([...found.keys()]).toEqual(plan.subtasks.map((subtask) => subtask.id));
    for (const task of first.tasks) expect(found.get(task.id)).toBe(task.output);
  });
});
