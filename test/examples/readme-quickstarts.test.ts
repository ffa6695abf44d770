/**
 * Every quick start of the README runs as printed, offline, against the built CLI (`node bin/weft.js`, from dist/:
 * `npm ci` or `npm run build` makes it), in a temporary copy of examples/ with a temporary Weft home, and prints
 * what the README says the user sees. Each runs twice in the same folder and home, so a demo that writes state
 * must give the same result again. Servers (`weft serve`, `weft mcp`) are started, asked once, and stopped.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';
import {
  fencedBlocks,
  fillPlaceholders,
  missingSampleLines,
  parseQuickStarts,
  type QuickStart,
  section,
  shellLines,
} from './readme-quickstarts.js';

describe('reading the quick starts', () => {
  const readme = [
    '# X',
    '## Quick starts',
    '### One: a title',
    '```sh',
    'A=examples/a; B=$A/b',
    'node bin/weft.js run $A \\',
    '  --model sim:',
    'node bin/weft.js show <runId>',
    '```',
    '```text',
    'run …: completed',
    '',
    'plan v2,   6/6 subtasks',
    '```',
    '## Further',
  ].join('\n');

  it('splits variables from commands and joins continued lines', () => {
    expect(parseQuickStarts(readme)).toEqual([
      {
        title: 'One: a title',
        assignments: ['A=examples/a; B=$A/b'],
        commands: ['node bin/weft.js run $A --model sim:', 'node bin/weft.js show <runId>'],
        sample: ['run …: completed', 'plan v2,   6/6 subtasks'],
      },
    ]);
  });

  it('matches a sample line with … as any text and spaces as any spacing, and nothing else', () => {
    const sample = ['run …: completed', 'plan v2,   6/6 subtasks'];
    expect(missingSampleLines(sample, 'run 20260101-120000-ab12: completed\nplan v2, 6/6 subtasks done')).toEqual([]);
    expect(missingSampleLines(sample, 'run 20260101-120000-ab12: failed\nplan v2, 5/6 subtasks')).toEqual(sample);
    // `…` stays on one line: it does not join text from two lines.
    expect(missingSampleLines(['run …: completed'], 'run x\n: completed')).toEqual(['run …: completed']);
  });

  it('fills <runId> and <traceId> from the latest id printed, and refuses a placeholder nothing printed', () => {
    const printed =
      'run 20260101-120000-ab12: completed\nrun 20260101-130000-cd34: completed\ntrace t-20260101-130000-0a1b2c3d: success';
    expect(fillPlaceholders('weft show <runId>', printed)).toBe('weft show 20260101-130000-cd34');
    expect(fillPlaceholders('weft distill <traceId>', printed)).toBe('weft distill t-20260101-130000-0a1b2c3d');
    expect(() => fillPlaceholders('weft show <runId>', 'nothing')).toThrow(/gives <runId>/);
    expect(() => fillPlaceholders('weft show <batchId>', printed)).toThrow(/no rule fills <batchId>/);
  });
});

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const QUICK_STARTS = parseQuickStarts(README);
const BIN = join(ROOT, 'bin', 'weft.js');
const COMMAND_TIMEOUT_MS = 60_000;

let work: string;
let home: string;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('the quick starts run the built CLI: run `npm run build` first');
  }
  work = mkdtempSync(join(tmpdir(), 'weft-readme-'));
  cpSync(join(ROOT, 'examples'), join(work, 'examples'), { recursive: true });
  home = join(work, 'home');
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The command as bash runs it in the work folder: the README's variables first, `node bin/weft.js` the built CLI. */
function script(quickStart: QuickStart, command: string, prefix = ''): string {
  const cli = prefix + command.replace(/^node bin\/weft\.js\b/, `node ${JSON.stringify(BIN)}`);
  return [...quickStart.assignments, cli].join('\n');
}

function environment(): Record<string, string> {
  return { ...(process.env as Record<string, string>), WEFT_HOME: home, NO_COLOR: '1' };
}

/** Runs one command to its end; stdout and stderr together, as a terminal shows them. */
function runCommand(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', text],
      { cwd: work, env: environment(), timeout: COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** Ends a server this test started, and waits until it has gone. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `weft serve` on a free port (the README's default port may be taken): its address answers the page with its token. */
async function runServe(text: string, before: string): Promise<string> {
  const child = spawn('bash', ['-c', `${text} --port 0`], { cwd: work, env: environment() });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  try {
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`weft serve printed no address:\n${printed}`)), 30_000);
      const look = () => {
        const found = /(http:\/\/\S+\?token=\S+)\n/.exec(printed)?.[1];
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      child.stdout.on('data', look);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`weft serve ended (exit ${code}) before printing an address:\n${printed}`));
      });
    });
    const url = new URL(address);
    const headers = { Authorization: `Bearer ${url.searchParams.get('token')}` };
    const page = await fetch(new URL('/', url), { headers });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type') ?? '').toContain('text/html');
    // The runs of the quick start's home are listed, the one just made among them.
    const runs = (await (await fetch(new URL('/api/runs', url), { headers })).json()) as { runs: { runId: string }[] };
    const made = [...before.matchAll(/\brun (\d{8}-\d{6}-[0-9a-f]+)\b/g)].at(-1)?.[1];
    expect(runs.runs.map((run) => run.runId)).toContain(made);
    const port = url.port;
    // The sample shows the default port; this server has its own.
    return printed.replace(`:${port}/`, ':4477/');
  } finally {
    await stop(child);
  }
}

/** `weft mcp` as an MCP client starts it: the names of the tools it lists, one line. */
async function runMcp(text: string): Promise<string> {
  const transport = new StdioClientTransport({
    command: 'bash',
    args: ['-c', text],
    cwd: work,
    env: environment(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'readme-quickstart', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return tools.map((tool) => tool.name).join(' ');
  } finally {
    await client.close();
  }
}

/** Runs a quick start's commands in order; what they printed, all of it. */
async function runQuickStart(quickStart: QuickStart): Promise<string> {
  let printed = '';
  for (const command of quickStart.commands) {
    const filled = fillPlaceholders(command, printed);
    if (/^node bin\/weft\.js serve\b/.test(filled)) {
      printed += await runServe(script(quickStart, filled, 'exec '), printed);
    } else if (/^node bin\/weft\.js mcp\b/.test(filled)) {
      printed += await runMcp(script(quickStart, filled, 'exec '));
    } else {
      const result = await runCommand(script(quickStart, filled));
      expect(result.code, `${filled}\n${result.output}`).toBe(0);
      printed += result.output;
    }
  }
  return printed;
}

describe('the README as a first page', () => {
  it('is under 150 lines, none over 120 characters', () => {
    const lines = README.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(150);
    expect(lines.filter((line) => line.length > 120)).toEqual([]);
  });

  it('has a quick start per system, each of at most three commands on the built CLI, with what the user sees', () => {
    expect(QUICK_STARTS.map((quickStart) => quickStart.title.split(':')[0])).toEqual([
      'Flow',
      'WorfBench',
      'DyLAN',
      'FlowAgent',
      'FlowMind',
      'Dashboard',
      'MCP',
    ]);
    for (const quickStart of QUICK_STARTS) {
      expect(quickStart.commands.length, quickStart.title).toBeGreaterThan(0);
      expect(quickStart.commands.length, quickStart.title).toBeLessThanOrEqual(3);
      expect(quickStart.sample.length, quickStart.title).toBeGreaterThan(0);
      for (const command of quickStart.commands) expect(command).toMatch(/^node bin\/weft\.js /);
    }
  });

  it('sets up with two commands: install and run the main job (the Flow quick start runs it too), and the tests', () => {
    const setUp = fencedBlocks(section(README, 'Set up')).filter((block) => block.lang === 'sh');
    expect(setUp).toHaveLength(1);
    const [install, tests] = shellLines(setUp[0]?.body ?? '');
    expect(tests).toBe('npm test');
    const mainJob = /^npm ci && (node bin\/weft\.js .*)$/.exec(install ?? '')?.[1];
    expect(mainJob).toBeDefined();
    expect(QUICK_STARTS[0]?.commands).toContain(mainJob);
  });
});

describe('the README quick starts, run as printed', () => {
  it.each(QUICK_STARTS.map((quickStart) => [quickStart.title, quickStart] as const))(
    '%s',
    async (_title, quickStart) => {
      for (const round of [1, 2]) {
        const printed = await runQuickStart(quickStart);
        expect(missingSampleLines(quickStart.sample, printed), `round ${round}:\n${printed}`).toEqual([]);
      }
    },
    240_000,
  );
});
