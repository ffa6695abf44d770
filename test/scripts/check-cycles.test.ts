/**
 * scripts/check-cycles.mjs's rule that the library's clients (the CLI, and the MCP server in src/serve) import from
 * src/ only the package's entries (src/index.ts, src/internal.ts, src/core.ts) and each other, on a toy source tree.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'weft-check-cycles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string): { code: number; stderr: string } {
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/check-cycles.mjs'), root], { stdio: 'pipe' });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stderr: Buffer };
    return { code: failed.status, stderr: failed.stderr.toString() };
  }
}

const library = {
  'index.ts': "export { pruneRuns } from './store/prune-runs.js';\n",
  'internal.ts': "export * from './index.js';\nexport { replaceFile } from './run/replace-file.js';\n",
  'test.ts': "export { scriptedModel } from './llm/scripted-model.js';\n",
  'store/prune-runs.ts': 'export const pruneRuns = 1;\n',
  'run/replace-file.ts': 'export const replaceFile = 1;\n',
  'llm/scripted-model.ts': 'export const scriptedModel = 1;\n',
  'cli/output.ts': 'export const output = 1;\n',
};

describe('check-cycles: the CLI is a client of the package entries', () => {
  it('accepts a CLI that imports src/index.ts, src/internal.ts and its own folder', () => {
    const root = tree({
      ...library,
      'cli/prune-command.ts': "import { pruneRuns } from '../index.js';\nimport { output } from './output.js';\n",
      'cli/out-file.ts': "import { replaceFile } from '../internal.js';\n",
    });
    expect(check(root)).toEqual({ code: 0, stderr: '' });
  });

  it("refuses a CLI file that imports weft/test (src/test.ts): the test models are for users' tests", () => {
    const root = tree({ ...library, 'cli/run-command.ts': "import { scriptedModel } from '../test.js';\n" });
    const { code, stderr } = check(root);
    expect(code).toBe(1);
    expect(stderr).toContain('run-command.ts (cli) imports');
  });

  it('refuses a CLI file that imports a library module directly, saying what to do instead', () => {
    const root = tree({
      ...library,
      'cli/prune-command.ts': "import type { pruneRuns } from '../store/prune-runs.js';\n",
    });
    const { code, stderr } = check(root);
    expect(code).toBe(1);
    expect(stderr).toContain('prune-command.ts (cli) imports');
    expect(stderr).toContain(
      'src/cli may import from src/ only the entries src/index.ts, src/internal.ts and src/core.ts',
    );
    expect(stderr).toContain('export what it needs from src/internal.ts');
  });
});

describe('check-cycles: the models layer knows no engine', () => {
  const models = {
    'llm/chat-model.ts': 'export const x = 1;\n',
    'llm/sim-model.ts': "export const fallback = 'other';\n",
    'run/run-task.ts': 'export const runTask = 1;\n',
  };

  it('accepts the generic sim files when they name no engine purpose', () => {
    expect(check(tree(models))).toEqual({ code: 0, stderr: '' });
  });

  it('refuses llm/ importing an engine', () => {
    const { code, stderr } = check(
      tree({ ...models, 'llm/sim-model.ts': "import { runTask } from '../run/run-task.js';\n" }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain('sim-model.ts (llm) imports');
  });

  it('refuses an engine-specific sim file in llm/, naming where responders belong', () => {
    const { code, stderr } = check(tree({ ...models, 'llm/sim-team.ts': 'export const team = 1;\n' }));
    expect(code).toBe(1);
    expect(stderr).toContain("sim-team.ts: src/llm holds only the sim model's generic parts");
    expect(stderr).toContain('src/sim-responders.ts');
  });

  it("refuses a generic sim file that switches on an engine's purpose", () => {
    const { code, stderr } = check(
      tree({ ...models, 'llm/sim-model.ts': "export const reply = (p: string) => (p === 'plan' ? '{}' : '');\n" }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain("sim-model.ts names the engine purpose 'plan'");
  });

  it('lets the MCP server (src/serve) use the public API and the CLI, and nothing else of the library', () => {
    const cliAndServe = {
      ...library,
      'serve/mcp-server.ts': "import { pruneRuns } from '../index.js';\nimport { output } from '../cli/output.js';\n",
      'cli/ops/mcp-command.ts': "import { output } from '../output.js';\nimport '../../serve/mcp-server.js';\n",
    };
    expect(check(tree(cliAndServe))).toEqual({ code: 0, stderr: '' });
    const { code, stderr } = check(
      tree({ ...cliAndServe, 'serve/mcp-eval.ts': "import type { pruneRuns } from '../store/prune-runs.js';\n" }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain('mcp-eval.ts (serve) imports');
    expect(stderr).toContain(
      'src/serve may import from src/ only the entries src/index.ts, src/internal.ts and src/core.ts',
    );
  });
});
