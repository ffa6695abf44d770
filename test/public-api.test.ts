/** src/index.ts is the curated public API: what a library user needs, by area, and not the internals of an area. */
import { describe, expect, it } from 'vitest';
import * as core from '../src/core.js';
import * as weft from '../src/index.js';

describe('the public API (src/index.ts)', () => {
  it('exports a function for each thing the CLI does', () => {
    const needed = [
      'planTask',
      'runTask',
      'resumeRun',
      'summarizeRun',
      'runResult',
      'renderReport',
      'planHistory',
      'pruneRuns',
      'openRunStore',
      'openExistingRunStore',
      'resolveHome',
      'createModel',
      'parseModelSpec',
      'resolveModelSpec',
      'runTeam',
      'evaluateTeam',
      'optimizeTeam',
      'loadTeamFile',
      'evaluatePredictions',
      'scoreWorkflow',
      'runWorfbench',
      'createQueueRunner',
      'runWorker',
      'isWeftError',
      'formatError',
      'simulateSessions',
      'evaluateTurns',
      'loadProfiles',
      'loadReferenceSessions',
    ];
    for (const name of needed) expect(typeof (weft as Record<string, unknown>)[name], name).toBe('function');
    expect(new weft.WeftError('NOT_FOUND', 'x').code).toBe('NOT_FOUND');
  });

  it('keeps the internals of scoring and parsing out', () => {
    for (const name of [
      'maximumIndependentSet',
      'longestIncreasingSubsequence',
      'matchNodes',
      'referenceOrders',
      'driveRun',
      'foldForResume',
      'removeRunDirectory',
    ]) {
      expect(Object.keys(weft), name).not.toContain(name);
    }
  });

  it('re-exports all of its light part, weft/core (src/core.ts), which holds no engine', () => {
    expect(Object.keys(core).length).toBeGreaterThan(10);
    for (const name of Object.keys(core))
      expect((weft as Record<string, unknown>)[name], name).toBe((core as Record<string, unknown>)[name]);
    for (const name of ['planTask', 'runTask', 'runTeam', 'scoreWorkflow'])
      expect(Object.keys(core), name).not.toContain(name);
  });
});
