/**
 * Hostile artifact writes: while `writeArtifacts` writes `sub/f<i>.txt`, another thread keeps swapping the
 * folder `artifacts/sub` for a symlink to a folder outside the run and back. Counts the files that landed outside
 * and the writes reported as written whose file is not inside. Also checks the hard-link case: a link planted in
 * `artifacts/` to an outside file must not let a write change that file.
 *
 *   npx tsx bench/artifact-race.ts [writes=3000] [holdMs=0.5]
 *
 * test/run/artifacts-race.test.ts runs a short version of the same race.
 */
import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { writeArtifacts } from '../src/run/artifacts.js';

export interface ArtifactRaceResult {
  readonly writes: number;
  /** Times the swapper put the symlink in place. */
  readonly swaps: number;
  readonly written: number;
  /** Files found in the outside folder after the race. */
  readonly landedOutside: number;
  /** Writes reported as written whose file is not inside the artifact folder. */
  readonly reportedButNotInside: number;
}

/** The swapper: renames the real folder away, puts a symlink to `outside` in its place, and back, until told to stop. */
const SWAPPER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { sub, parked, outside, stop, hold } = workerData;
const flag = new Int32Array(stop);
Atomics.store(flag, 1, 1);
const link = sub + '.link';
while (Atomics.load(flag, 0) === 0) {
  Atomics.add(flag, 2, 1);
  try { fs.symlinkSync(outside, link); } catch {}
  // Hold each state for a fraction of a write's duration, so flips land between a writer's look and its open.
  try { fs.renameSync(sub, parked); fs.renameSync(link, sub); } catch {}
  Atomics.wait(flag, 3, 0, Math.random() * hold);
  try { fs.renameSync(sub, link); fs.renameSync(parked, sub); } catch {}
  Atomics.wait(flag, 3, 0, Math.random() * hold);
}
try { fs.unlinkSync(link); } catch {}
try { if (fs.lstatSync(sub).isSymbolicLink()) fs.unlinkSync(sub); } catch {}
try { fs.renameSync(parked, sub); } catch {}
`;

export async function artifactRace(writes: number, holdMs = 0.5): Promise<ArtifactRaceResult> {
  const base = await mkdtemp(join(tmpdir(), 'weft-artifact-race-'));
  try {
    const dir = join(base, 'runs', 'r1', 'artifacts');
    const outside = join(base, 'outside');
    await mkdir(join(dir, 'sub'), { recursive: true });
    await mkdir(outside);
    const stop = new SharedArrayBuffer(16);
    const worker = new Worker(SWAPPER, {
      eval: true,
      workerData: { sub: join(dir, 'sub'), parked: join(dir, 'parked'), outside, stop, hold: holdMs },
    });
    const reported: string[] = [];
    let swaps = 0;
    // Start writing only once the swapper runs.
    while (Atomics.load(new Int32Array(stop), 1) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    try {
      for (let index = 0; index < writes; index += 1) {
        const result = await writeArtifacts(dir, [{ path: `sub/f${index}.txt`, content: `file ${index}\n` }]);
        for (const file of result.written) reported.push(file.path);
      }
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1);
      swaps = Atomics.load(new Int32Array(stop), 2);
      await new Promise((resolve) => worker.once('exit', resolve));
    }
    const landedOutside = (await readdir(outside)).length;
    // After the swapper stops, `sub` is the real folder again (or `parked` holds it).
    const inside = (path: string): boolean =>
      existsSync(join(dir, path)) || existsSync(join(dir, 'parked', path.replace(/^sub\//, '')));
    return {
      writes,
      swaps,
      written: reported.length,
      landedOutside,
      reportedButNotInside: reported.filter((path) => !inside(path)).length,
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** A hard link planted in the artifact folder to an outside file: true when the write left the outside file alone. */
export async function hardLinkIsSafe(): Promise<boolean> {
  const base = await mkdtemp(join(tmpdir(), 'weft-artifact-link-'));
  try {
    const dir = join(base, 'runs', 'r1', 'artifacts');
    await mkdir(dir, { recursive: true });
    const secret = join(base, 'secret.txt');
    await writeFile(secret, 'secret');
    await link(secret, join(dir, 'notes.txt'));
    await writeArtifacts(dir, [{ path: 'notes.txt', content: 'pwned' }]);
    return (await readFile(secret, 'utf8')) === 'secret';
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const writes = Number(process.argv[2] ?? 3000);
  const result = await artifactRace(writes, Number(process.argv[3] ?? 0.5));
  console.log(JSON.stringify({ ...result, hardLinkSafe: await hardLinkIsSafe() }));
}
