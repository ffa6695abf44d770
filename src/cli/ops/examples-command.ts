/**
 * `weft examples`: the examples the package ships, one line each, and `weft examples copy NAME DIR`, which copies
 * one into a folder to edit. Each command runs from the folder that holds examples/; the copy keeps that layout
 * (DIR/examples/gobang/…), so the command runs the same from DIR. It never follows a symbolic link that leads out
 * of the examples folder, and it refuses a DIR that holds anything unless --force.
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WeftError } from '../../internal.js';
import type { Output } from '../output.js';
import { EXAMPLES, type ExampleEntry } from './example-catalogue.js';

/** The examples folder of this package: two folders up from src/cli/ops and from dist/cli/ops alike. */
export function examplesRoot(): string {
  return fileURLToPath(new URL('../../../examples/', import.meta.url));
}

export function examplesCommand(_flags: { json?: boolean }, output: Output, root = examplesRoot()): number {
  const runFrom = dirname(resolve(root));
  if (output.json) {
    output.document({ folder: root, runFrom, examples: EXAMPLES });
    return 0;
  }
  output.text(`examples in ${root}`);
  output.text(`commands run from ${runFrom}, or from a copy's folder (weft examples copy NAME DIR)`);
  const width = Math.max(...EXAMPLES.map((entry) => entry.name.length));
  for (const entry of EXAMPLES) {
    output.text(`  ${entry.name.padEnd(width)}  ${entry.shows}`);
    output.text(`  ${' '.repeat(width)}  $ ${entry.command}`);
  }
  return 0;
}

export function examplesCopyCommand(
  name: string,
  dir: string,
  flags: { force?: boolean; json?: boolean },
  output: Output,
  root = examplesRoot(),
): number {
  const entry = EXAMPLES.find((candidate) => candidate.name === name);
  if (!entry)
    throw new WeftError(
      'BAD_INPUT',
      `no example named ${JSON.stringify(name)}; the examples are: ${EXAMPLES.map((e) => e.name).join(', ')}`,
      { location: { field: 'NAME' } },
    );
  const target = resolve(dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory())
      throw new WeftError('BAD_INPUT', `${target} exists and is not a folder`, { location: { field: 'DIR' } });
    if (readdirSync(target).length > 0 && !flags.force)
      throw new WeftError('BAD_INPUT', `${target} is not empty; give an empty or new folder, or --force to copy over`, {
        location: { field: 'DIR' },
      });
  }
  const files = copyExample(entry, root, target);
  if (output.json) output.document({ name: entry.name, folder: target, files, command: entry.command });
  else {
    output.text(`copied ${entry.name} (${files.length} files) to ${target}`);
    output.text(`run it: cd ${target} && ${entry.command}`);
  }
  return 0;
}

/** Copies the example's paths into target/examples/, as they are under examples/; returns the files copied. */
function copyExample(entry: ExampleEntry, root: string, target: string): string[] {
  const realRoot = realpathSync(root);
  const copied: string[] = [];
  // Folders already entered, by their real path: a link to a folder above it would otherwise copy forever.
  const entered = new Set<string>();
  const copy = (relativePath: string): void => {
    const from = join(root, relativePath);
    const to = join(target, 'examples', relativePath);
    const link = lstatSync(from);
    if (link.isSymbolicLink()) {
      // A link is copied as what it points at, and only when that stays inside the examples folder.
      const real = realpathSync(from);
      if (real !== realRoot && !real.startsWith(realRoot + sep))
        throw new WeftError(
          'BAD_INPUT',
          `examples/${relativePath} is a link out of the examples folder (to ${readlinkSync(from)}); not copied`,
          { location: { file: from } },
        );
    }
    if (statSync(from).isDirectory()) {
      const real = realpathSync(from);
      if (entered.has(real)) return;
      entered.add(real);
      mkdirSync(to, { recursive: true });
      for (const child of readdirSync(from).sort()) copy(join(relativePath, child));
      return;
    }
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    copied.push(relative(target, to).split(sep).join('/'));
  };
  for (const path of entry.paths) copy(path);
  return copied;
}
