/**
 * Whether a file holds an executable workflow rather than something else a command takes in the same place
 * (`weft eval` takes WorfBench gold and predictions, or two executable workflows): a regular `.json`, `.yaml` or
 * `.yml` file whose document is an object with a `nodes` list. WorfBench gold is an array or JSONL of records and a
 * prediction line has no `nodes`, so the answer is never ambiguous. Never throws: anything unreadable is "no", and
 * the command that reads it next reports why.
 */
import { readFile, stat } from 'node:fs/promises';
import { yaml } from '../text/yaml.js';
import { MAX_WORKFLOW_FILE_BYTES } from './read-workflow-file.js';

export async function isExecutableWorkflowFile(path: string): Promise<boolean> {
  if (!/\.(?:json|ya?ml)$/i.test(path)) return false;
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > MAX_WORKFLOW_FILE_BYTES) return false;
    const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
    // A gold file is a JSON array: no need to parse megabytes of it to say no.
    if (/^\s*\[/.test(text)) return false;
    const value: unknown = /\.json$/i.test(path) ? JSON.parse(text) : yaml().parse(text);
    return (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Array.isArray((value as Record<string, unknown>).nodes)
    );
  } catch {
    return false;
  }
}
