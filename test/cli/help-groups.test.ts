/** `weft --help` grouped by system, and one example at the end of every command's help, on files that exist. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELP_EXAMPLES, HELP_GROUPS } from '../../src/cli/help-groups.js';
import { cli } from './cli-harness.js';

/** Every command path (`team eval`) from the help of the program and its families. */
async function commandPaths(prefix: string[] = []): Promise<string[]> {
  const help = await cli([...prefix, '--help']);
  const section = help.stdout.split(/\n(?=\S)/).filter((block) => /^(Commands|[A-Z].*\(.*\)|Operations):/.test(block));
  const names = section
    .flatMap((block) => [...block.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]!))
    .filter((name) => name !== 'help');
  const paths: string[] = [];
  for (const name of names) {
    paths.push([...prefix, name].join(' '));
    if (prefix.length === 0) paths.push(...(await commandPaths([name])));
  }
  return paths;
}

describe('weft --help', () => {
  it('lists the commands under the five systems and operations, in that order, each command once', async () => {
    const { stdout, code } = await cli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Flow\)/);
    for (const paper of ['WorfBench', 'DyLAN', 'FlowAgent', 'FlowMind'])
      expect(stdout.split('\n\n')[1]).toContain(paper);
    const headings = [...stdout.matchAll(/^(\S.*):$/gm)].map((match) => match[1]);
    expect(headings).toEqual(['Options', ...HELP_GROUPS.map((group) => group.heading.replace(/:$/, '')), 'Commands']);
    for (const { heading, commands } of HELP_GROUPS) {
      const block = stdout.slice(stdout.indexOf(heading)).split('\n\n')[0]!;
      const listed = [...block.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]);
      expect(listed, heading).toEqual(commands);
    }
  });

  it('names each family’s subcommands on its line, so they are found from the top', async () => {
    const { stdout } = await cli(['--help']);
    const flat = stdout.replace(/\s+/g, ' ');
    expect(flat).toMatch(/team \[options\] \[question\] .*\(subcommands: run, optimize, eval, replay\)/);
    expect(flat).toMatch(/distill \[options\] \[traceIds\.\.\.\] .*\(subcommands: eval\)/);
    expect(flat).toMatch(/traces \[options\] .*\(subcommands: show\)/);
    expect(flat).toMatch(/dialog .*\(subcommands: eval\)/);
  });

  it('every command and subcommand ends its help with an example whose repository files exist', async () => {
    const paths = await commandPaths();
    expect(paths).toContain('team eval');
    expect(paths).toContain('examples copy');
    for (const path of paths) {
      const { stdout, code } = await cli([...path.split(' '), '--help']);
      expect(code, path).toBe(0);
      const example = HELP_EXAMPLES[path];
      expect(example, `no example for weft ${path}`).toBeDefined();
      expect(stdout.trimEnd().endsWith(`Example:\n  ${example}`), path).toBe(true);
      expect(example!.startsWith(`weft ${path.split(' ')[0]}`), path).toBe(true);
      for (const file of example!.match(/(?:examples|test\/fixtures)\/[\w./-]+/g) ?? [])
        expect(existsSync(file.replace(/[.]$/, '')), `${path}: ${file}`).toBe(true);
    }
  });

  it('weft workflow --help does not call the feature unfinished', async () => {
    const { stdout } = await cli(['workflow', '--help']);
    expect(stdout).not.toMatch(/in progress|not yet|unfinished/i);
  });
});
