/**
 * The package's entries: `weft` (src/index.ts) is the curated library API, listed here name by name so that adding
 * to it is a deliberate change; `weft/core` is its light part; `weft/internal` adds what the CLI needs; `weft/test`
 * holds the models for tests and the store conformance suites.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as weftFromAlias from 'weft';
import * as internalFromAlias from 'weft/internal';
import * as testFromAlias from 'weft/test';
import * as core from '../src/core.js';
import * as weft from '../src/index.js';
import * as internal from '../src/internal.js';
import * as testing from '../src/test.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every runtime value `weft` exports, sorted. Types are not listed: they cost nothing at run time. */
const WEFT_API = [
  'CALL_PURPOSES',
  'DEFAULT_PRICES',
  'MODEL_PROVIDERS',
  'WeftError',
  'callTool',
  'checkPdl',
  'checkWorkflow',
  'costOf',
  'createBudgetScope',
  'createConversation',
  'createModel',
  'createQueueRunner',
  'createSimilarity',
  'defaultRoleKinds',
  'defineTool',
  'describeStore',
  'diffWorkflows',
  'distillTraces',
  'effectiveStatus',
  'evaluatePredictions',
  'evaluateTeam',
  'evaluateTurns',
  'execute',
  'formatError',
  'formatModelSpec',
  'formatWorkflowText',
  'isWeftError',
  'listProviders',
  'loadGold',
  'loadPdlFile',
  'loadProfiles',
  'loadReferenceSessions',
  'loadTeamFile',
  'loadToolsFile',
  'loadWorkflowFile',
  'mergePrices',
  'mergeToolSets',
  'newRunId',
  'openExistingRunStore',
  'openRunStore',
  'optimizeTeam',
  'outputFileName',
  'outputFilePath',
  'ownerState',
  'parseExecutableWorkflow',
  'parseModelSpec',
  'parsePdl',
  'parseWorkflow',
  'parseWorkflowText',
  'planHistory',
  'planTask',
  'pruneRuns',
  'readPredictions',
  'readSessionEvents',
  'readTeamDataset',
  'redactModelSpec',
  'registerProvider',
  'registerUpdatePolicy',
  'renderReport',
  'requestedModelName',
  'resolveHome',
  'resolveModelSpec',
  'resumeRun',
  'runBatch',
  'runEventPage',
  'runEvents',
  'runPaths',
  'runResult',
  'runTask',
  'runTeam',
  'runWorfbench',
  'runWorker',
  'runWorkflow',
  'scoreWorkflow',
  'selectRunsToPrune',
  'sessionStoreOf',
  'setTelemetryContent',
  'simulateSessions',
  'solveTask',
  'startDashboard',
  'startTelemetry',
  'stopTelemetry',
  'storeSpecFrom',
  'summarizeRun',
  'toDot',
  'toMermaid',
  'toWorkflowJson',
  'traceStoreOf',
  'transcriptOf',
  'updatePolicy',
  'updatePolicyNames',
  'withConcurrency',
  'withResilience',
  'withRetries',
  'withTimeout',
  'workflowFromJson',
  'workflowMermaid',
  'workflowMetrics',
  'workflowToWorkflowText',
];

const WEFT_TEST = [
  'describeBatchStore',
  'describeRunStore',
  'describeSessionStore',
  'describeTraceStore',
  'loadScriptedModel',
  'parseSimOptions',
  'registerSimOptions',
  'registerSimResponder',
  'scriptedModel',
  'simIntegerOption',
  'simModel',
  'simOptionError',
  'simPathOption',
  'simProbabilityOption',
  'simResponderPurposes',
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The names src/cli imports from src/internal.ts, statically or dynamically. */
function namesTheClientsImportFromInternal(): Set<string> {
  const names = new Set<string>();
  for (const file of [...sources(join(ROOT, 'src', 'cli')), ...sources(join(ROOT, 'src', 'serve'))]) {
    const text = readFileSync(file, 'utf8');
    const bindings = [
      ...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(?:\.\.\/)+internal\.js'/g),
      ...text.matchAll(/const\s+\{([^}]*)\}\s*=\s*await\s+import\('(?:\.\.\/)+internal\.js'\)/g),
    ];
    for (const [, list] of bindings)
      for (const entry of (list ?? '').split(',')) {
        const name = entry
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0];
        if (name) names.add(name);
      }
  }
  return names;
}

describe('weft (src/index.ts), the library API', () => {
  it('exports exactly the listed runtime values, fewer than 100', () => {
    expect(Object.keys(weft).sort()).toEqual(WEFT_API);
    expect(WEFT_API.length).toBeLessThan(100);
  });

  it('keeps the CLI helpers and the internals of scoring and parsing out', () => {
    for (const name of [
      'candidateSummary',
      'replaceFile',
      'formatPlanHistory',
      'integerOption',
      'inertText',
      'scriptedModel',
      'maximumIndependentSet',
      'matchNodes',
      'driveRun',
      'foldForResume',
    ])
      expect(Object.keys(weft), name).not.toContain(name);
  });

  it('re-exports all of its light part, weft/core (src/core.ts), which holds no engine', () => {
    expect(Object.keys(core).length).toBeGreaterThan(10);
    for (const name of Object.keys(core))
      expect((weft as Record<string, unknown>)[name], name).toBe((core as Record<string, unknown>)[name]);
    for (const name of ['planTask', 'runTask', 'runTeam', 'scoreWorkflow'])
      expect(Object.keys(core), name).not.toContain(name);
  });
});

describe('weft/internal (src/internal.ts)', () => {
  it('re-exports all of weft, the same values', () => {
    for (const name of WEFT_API)
      expect((internal as Record<string, unknown>)[name], name).toBe((weft as Record<string, unknown>)[name]);
  });

  it('holds nothing beyond weft that the CLI does not import (no dead entries)', () => {
    const used = namesTheClientsImportFromInternal();
    const extra = Object.keys(internal).filter((name) => !WEFT_API.includes(name));
    expect(extra.length).toBeGreaterThan(0);
    expect(extra.filter((name) => !used.has(name))).toEqual([]);
  });
});

describe('weft/test (src/test.ts)', () => {
  it('exports the models for tests and the store conformance suites', () => {
    expect(Object.keys(testing).sort()).toEqual(WEFT_TEST);
    for (const name of WEFT_TEST) expect(typeof (testing as Record<string, unknown>)[name], name).toBe('function');
  });

  it('its models answer without a network: scripted replies in order, the seeded simulator by its spec', async () => {
    const model = testing.scriptedModel([{ text: 'first' }, { text: 'second' }]);
    const call = { messages: [{ role: 'user' as const, content: 'hello' }] };
    expect((await model.generate(call)).text).toBe('first');
    expect((await model.generate(call)).text).toBe('second');
    const sim = testing.simModel('seed=7');
    expect(sim.kind).toBe('sim');
    expect(sim.options.seed).toBe(7);
    // Seeded: another sim of the same seed answers the same call with the same text.
    const answer = (await sim.generate(call)).text;
    expect(answer).not.toBe('');
    expect((await testing.simModel({ seed: 7 }).generate(call)).text).toBe(answer);
    expect(testing.parseSimOptions('seed=7').seed).toBe(7);
  });

  it("takes sim option keys of a caller's own, for a responder of their own", () => {
    const unregister = testing.registerSimOptions([testing.simIntegerOption('depth', { default: 2, min: 1 })]);
    try {
      expect(testing.parseSimOptions('depth=5')).toMatchObject({ depth: 5 });
      expect(testing.simModel('depth=5').id).toContain(',depth=5');
      expect(() => testing.parseSimOptions('depth=0')).toThrow(/"depth".*>= 1/);
    } finally {
      unregister();
    }
    expect(() => testing.parseSimOptions('depth=5')).toThrow(/unknown option/);
  });
});

describe('the package names resolve to the sources in tests (vitest alias, tsconfig paths)', () => {
  it("'weft', 'weft/internal' and 'weft/test' are src/index.ts, src/internal.ts and src/test.ts", () => {
    expect(weftFromAlias.runTask).toBe(weft.runTask);
    expect(internalFromAlias.replaceFile).toBe(internal.replaceFile);
    expect(testFromAlias.describeRunStore).toBe(testing.describeRunStore);
  });
});

// After `npm run build` (CI's `npm ci` runs it as `prepare`), the package imports itself by name from dist/. A dist/
// built before these entries existed has no test.js: then there is nothing built to check.
const built = ['index', 'core', 'internal', 'test'].every((name) => existsSync(join(ROOT, 'dist', `${name}.js`)));
describe.skipIf(!built)('the built package (dist/), imported by its own name', () => {
  it('resolves weft, weft/core, weft/internal and weft/test through package.json exports', async () => {
    const script = `
      const [weft, core, internal, test] = await Promise.all(
        ['weft', 'weft/core', 'weft/internal', 'weft/test'].map((name) => import(name)),
      );
      console.log(JSON.stringify({
        weft: typeof weft.runTask, core: typeof core.openRunStore, internal: typeof internal.replaceFile,
        test: typeof test.describeRunStore, same: internal.runTask === weft.runTask,
      }));`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT }, (error, out, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(out),
      ),
    );
    expect(JSON.parse(stdout)).toEqual({
      weft: 'function',
      core: 'function',
      internal: 'function',
      test: 'function',
      same: true,
    });
  });
});
