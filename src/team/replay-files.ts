/**
 * Files of recorded DyLAN runs (docs/teams.md#replaying-recorded-runs): one recording (`<subject>_<N>3.json` with
 * its `.txt` beside it), and the team folders of the authors' MMLU runs (`mmlu_optimal7_<N>`). The parsing is
 * in replay-recording.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WeftError } from '../errors.js';
import { parseDylanRecording, type DylanRecording } from './replay-recording.js';

/** Reads a recording's `.json` and, when it exists, the `.txt` beside it. */
export function readDylanRecording(jsonFile: string): DylanRecording {
  if (!existsSync(jsonFile))
    throw new WeftError('BAD_INPUT', `${jsonFile}: no such recording`, { location: { file: jsonFile } });
  const txtFile = jsonFile.replace(/\.json$/i, '.txt');
  const json = { file: jsonFile, text: readFileSync(jsonFile, 'utf8') };
  return existsSync(txtFile) && txtFile !== jsonFile
    ? parseDylanRecording(json, { file: txtFile, text: readFileSync(txtFile, 'utf8') })
    : parseDylanRecording(json);
}

export interface RecordedTeamFolder {
  /** Team size, from the folder name `mmlu_optimal7_<N>`. */
  readonly agents: number;
  readonly dir: string;
  /** The `.json` recordings in it, sorted by name. */
  readonly files: readonly string[];
}

/** The `mmlu_optimal7_<N>` folders under `expDir` (the authors' `exp/MMLU`), smallest team first. */
export function listRecordedTeams(expDir: string): RecordedTeamFolder[] {
  if (!existsSync(expDir))
    throw new WeftError('BAD_INPUT', `${expDir}: no such folder`, { location: { file: expDir } });
  return readdirSync(expDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^mmlu_optimal7_\d+$/.test(entry.name))
    .map((entry) => {
      const dir = join(expDir, entry.name);
      return {
        agents: Number(entry.name.split('_').at(-1)),
        dir,
        files: readdirSync(dir)
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(dir, name)),
      };
    })
    .sort((a, b) => a.agents - b.agents);
}
