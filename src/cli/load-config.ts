/** Reads `<home>/config.yaml`; its parser and schema (config.ts, with zod and yaml) load only when the file exists. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WeftError } from '../errors.js';
import type { WeftConfig } from './config.js';

export const CONFIG_FILE = 'config.yaml';

export async function loadConfig(home: string): Promise<WeftConfig> {
  const file = join(home, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new WeftError('BAD_INPUT', `Cannot read config: ${(error as Error).message}`, {
      location: { file },
      cause: error,
    });
  }
  const { parseConfig } = await import('./config.js');
  return parseConfig(text, file);
}
