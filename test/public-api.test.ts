/** src/index.ts is the curated public API: what a library user needs, by area, and not the internals of an area. */
import { describe, expect, it } from 'vitest';
import * as weft from '../src/index.js';

describe('the public API (src/index.ts)', () => {
  it('exports a function for each thing the CLI does', () => {
    const needed = [
      'planTask', 'runTask', 'resumeRun', 'summarizeRun', 'runResult', 'renderReport', 'planHistory', 'pruneRuns',
      'openRunStore', 'openExistingRunStore', 'resolveHome', 'createModel', 'parseModelSpec', 'resolveModelSpec',
      'runTeam', 'evaluateTeam', 'optimizeTeam', 'loadTeamFile', 'evaluatePredictions', 'scoreWorkflow',
      'runWorfbench', 'createQueueRunner', 'runWorker', 'isWeftError', 'formatError',
    ];
    for (const name of needed) expect(typeof (weft as Record<string, unknown>)[name], name).toBe('function');
    expect(new weft.WeftError('NOT_FOUND', 'x').code).toBe('NOT_FOUND');
  });

  it('keeps the internals of scoring and parsing out', () => {
    for (const name of ['maximumIndependentSet', 'longestIncreasingSubsequence', 'matchNodes', 'referenceOrders', 'driveRun', 'foldForResume', 'removeRunDirectory']) {
      expect(Object.keys(weft), name).not.toContain(name);
    }
  });
});
