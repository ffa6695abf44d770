/**
 * Whether a file holds an executable workflow rather than something else a command takes in the same place
 * (`weft eval` takes WorfBench gold and predictions, or two executable workflows): a regular `.json`, `.yaml` or
 * `.yml` file whose document is an object with a `nodes` list. WorfBench gold is an array or JSONL of records and a
 * prediction line has no `nodes`, so the answer is never ambiguous. Never throws.
 */
import { readFile, stat } from 'node:fs/promises';
import { yaml } from '../text/yaml.js';
import { MAX_WORKFLOW_FILE_BYTES } from './read-workflow-file.js';

/**
 * `workflow`; `other` for anything that reads as something else (a folder, a `.jsonl` file, a JSON array, an
 * object without `nodes`); `unreadable` for a `.json`/`.yaml` file that is missing, too large or not valid JSON or
 * YAML, which `loadWorkflowFile` then explains with its located errors when a workflow was expected there.
 */
export type WorkflowFileKind = 'workflow' | 'other' | 'unreadable';

export async function workflowFileKind(path: string): Promise<WorkflowFileKind> {
  if (!/\.(?:json|ya?ml)$/i.test(path)) return 'other';
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) return info.isDirectory() ? 'other' : 'unreadable';
    if (info.size > MAX_WORKFLOW_FILE_BYTES) return 'unreadable';
    text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  } catch {
    return 'unreadable';
  }
  // A gold file is a JSON array: no need to parse megabytes of it to say no.
  if (/^\s*\[/.test(text)) return 'other';
  try {
    const value: unknown = /\.json$/i.test(path) ? JSON.parse(text) : yaml().parse(text);
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    return isObject && Array.isArray((value as Record<string, unknown>).nodes) ? 'workflow' : 'other';
  } catch {
    return 'unreadable';
  }
}
