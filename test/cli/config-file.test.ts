/** `<home>/config.yaml`: every problem at its own place, with file, line, column and field. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/config.js';
import { isWeftError, type LocatedIssue } from '../../src/errors.js';
import { cli, tempHome } from './cli-harness.js';

function configIssues(text: string): readonly LocatedIssue[] {
  try {
    parseConfig(text, 'config.yaml');
  } catch (error) {
    if (isWeftError(error) && error.code === 'BAD_INPUT') return error.issues;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('config file problems', () => {
  it('a misspelt key is reported at the key, with a guess', () => {
    expect(configIssues('model: sim:seed=1\nretrys: 3\n')).toEqual([
      {
        file: 'config.yaml',
        line: 2,
        column: 1,
        field: 'retrys',
        message: expect.stringContaining('unknown field "retrys" (did you mean "retries"?)'),
      },
    ]);
  });

  it('a misspelt key inside prices is reported at the key, after the field it leaves missing', () => {
    const issues = configIssues('prices:\n  my-model:\n    inputPerMillion: 1\n    outputPerMilion: 2\n');
    expect(issues).toEqual([
      expect.objectContaining({
        line: 2,
        column: 3,
        field: 'prices["my-model"].outputPerMillion',
        message: 'missing required field "outputPerMillion"',
      }),
      expect.objectContaining({
        line: 4,
        column: 5,
        field: 'prices["my-model"].outputPerMilion',
        message: expect.stringContaining('did you mean "outputPerMillion"?'),
      }),
    ]);
  });

  it("the CLI prints the key's own line", async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), '# defaults\nretrys: 3\n');
    const result = await cli(['runs', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(home, 'config.yaml')}:2:1 retrys: unknown field "retrys"`);
  });
});
