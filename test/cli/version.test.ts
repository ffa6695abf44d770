import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from './cli-harness.js';

describe('weft --version', () => {
  it('prints the package version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const result = await cli([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });

  it('--help lists every command and exits 0', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['plan', 'run', 'resume', 'worker', 'show', 'runs', 'prune', 'eval', 'bench', 'team'])
      expect(result.stdout).toMatch(new RegExp(`\\n  ${command} `));
  });
});
