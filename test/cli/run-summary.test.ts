/**
 * What `weft run` prints: the README's gobang run ends with a short summary and the paths of its folders, not the
 * generated code; report.md links the artifacts; a cancelled run names `weft resume`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { Capture, cli, tempHome } from './cli-harness.js';

const GOBANG = ['run', 'examples/gobang/task.md', '--model', 'scripted:examples/gobang/replies.json'];

describe('weft run, the summary', () => {
  it('gobang: a summary of a few lines with status, subtasks, calls, cost and the three paths; show --output has the rest', async () => {
    const home = tempHome();
    const run = await cli([...GOBANG, '--home', home]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(12);
    const runId = /^run (\S+): completed/.exec(lines[0]!)?.[1];
    expect(runId).toBeDefined();
    const runDir = join(home, 'runs', runId!);
    expect(run.stdout).toMatch(/^plan v\d+, 6\/6 subtasks completed, [\d.]+ s$/m);
    expect(run.stdout).toMatch(/^\d+ calls, \d+ tokens, \$\d+\.\d{4}$/m);
    expect(lines).toContain(`report: ${runDir}/report.md`);
    expect(lines).toContain(`artifacts: ${runDir}/artifacts/`);
    expect(lines).toContain(`outputs: ${runDir}/outputs/`);
    expect(run.stdout).not.toContain('<!DOCTYPE html>');
    const hint = /print one with weft show (\S+) --output (\S+)$/.exec(lines.at(-1)!);
    expect(hint?.[1]).toBe(runId);
    const shown = await cli(['show', runId!, '--output', hint![2]!, '--home', home]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(`${readFileSync(join(runDir, 'outputs', `${hint![2]}.md`), 'utf8')}\n`);
  });

  it('report.md links every artifact relatively, and the links resolve to the files', async () => {
    const home = tempHome();
    const run = JSON.parse((await cli([...GOBANG, '--home', home, '--json'])).stdout) as { runDir: string };
    const report = readFileSync(join(run.runDir, 'report.md'), 'utf8');
    const links = [...report.matchAll(/^- \[`([^`]+)`\]\(([^)]+)\)/gm)];
    expect(links.map((link) => link[1]).sort()).toEqual(
      ['ai.js', 'check-rules.cjs', 'game.js', 'index.html', 'rules.js', 'style.css'].sort(),
    );
    for (const [, path, href] of links) {
      expect(href).toBe(`artifacts/${path}`);
      expect(existsSync(join(run.runDir, decodeURIComponent(href!)))).toBe(true);
    }
  });

  it('a run cancelled with SIGINT says how to resume it, and the resume finishes it', async () => {
    const home = tempHome();
    const stdout = new Capture();
    const stderr = new Capture();
    // The signal arrives once the first subtask is done: the handler main installed is what gets it.
    const original = stderr._write.bind(stderr);
    let sent = false;
    stderr._write = (chunk, encoding, callback) => {
      original(chunk, encoding, callback);
      if (!sent && /done t\d/.test(stderr.text)) {
        sent = true;
        process.emit('SIGINT');
      }
    };
    const code = await main(
      ['run', 'write a short story in six parts', '--model', 'sim:seed=8,tasks=6,latency=fixed(20)', '--home', home],
      { stdout, stderr },
    );
    expect(sent).toBe(true);
    expect(code).toBe(1);
    const runId = /^run (\S+): cancelled/m.exec(stdout.text)?.[1];
    expect(runId, stdout.text).toBeDefined();
    expect(stderr.text).toContain(`Resume with: weft resume ${runId}`);
    const resumed = await cli(['resume', runId!, '--home', home]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).not.toContain('Resume with');
  });
});
