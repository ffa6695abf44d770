import { describe, expect, it } from 'vitest';
import { compareGroups, scenarioGroupOf, scenarioOf, SCENARIO_SOURCES, sourceOfId } from '../../src/eval/scenarios.js';

describe('scenarioOf', () => {
  it('maps each WorfBench source to its scenario (docs/algorithms.md#worfbench-scenarios)', () => {
    expect(['toolbench', 'toolalpaca', 'seal_tools'].map(scenarioOf)).toEqual([
      'function call',
      'function call',
      'function call',
    ]);
    expect(['alfworld', 'webshop', 'os', 'intercodesql'].map(scenarioOf)).toEqual([
      'embodied',
      'embodied',
      'embodied',
      'embodied',
    ]);
    expect(scenarioOf('lumos')).toBe('problem-solving');
    expect(scenarioOf('wikihow')).toBe('open-grounded');
  });

  it('ignores case and surrounding spaces', () => {
    expect(scenarioOf(' ALFWorld ')).toBe('embodied');
  });

  it('has no scenario for a source WorfBench does not have, which is then its own group', () => {
    expect(scenarioOf('mybench')).toBeUndefined();
    expect(scenarioGroupOf('mybench')).toBe('mybench');
    expect(scenarioGroupOf('webshop')).toBe('embodied');
  });

  it('lists nine sources, each in one scenario', () => {
    const sources = Object.values(SCENARIO_SOURCES).flat();
    expect(sources).toHaveLength(9);
    expect(new Set(sources).size).toBe(9);
  });
});

describe('sourceOfId', () => {
  it('takes the prefix before the trailing number, underscores included', () => {
    expect(sourceOfId('alfworld_12')).toBe('alfworld');
    expect(sourceOfId('seal_tools_3')).toBe('seal_tools');
    expect(sourceOfId('lumos_40163')).toBe('lumos');
  });

  it('is undefined for ids without a numbered suffix', () => {
    expect(sourceOfId('alfworld')).toBeUndefined();
    expect(sourceOfId('_12')).toBeUndefined();
    expect(sourceOfId('task_12a')).toBeUndefined();
  });
});

describe('compareGroups', () => {
  it('orders scenarios as the paper does, then sources by scenario, then others alphabetically', () => {
    const groups = [
      'zeta',
      'open-grounded',
      'lumos',
      'embodied',
      'alpha',
      'toolbench',
      'function call',
      'problem-solving',
      'wikihow',
      'alfworld',
    ];
    expect([...groups].sort(compareGroups)).toEqual([
      'function call',
      'embodied',
      'problem-solving',
      'open-grounded',
      'toolbench',
      'alfworld',
      'lumos',
      'wikihow',
      'alpha',
      'zeta',
    ]);
  });
});
