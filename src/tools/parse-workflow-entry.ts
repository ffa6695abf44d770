/**
 * A `workflow` entry of a tools section: a distilled workflow file (docs/workflows.md) offered as a tool. Only the
 * entry's own fields are checked here; the file is read, checked and bound to its tools when the section is opened
 * (the workflow interpreter's opener, given to openToolSources).
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  type EntryContext,
  type Fields,
  MAX_RESULT_BYTES_LIMIT,
  MAX_TIMEOUT_MS,
  type SourceBase,
  type ToolSourceSpec,
} from './tool-entry-fields.js';

/** Node visits one run may be allowed; the interpreter's default is 10,000. */
export const MAX_WORKFLOW_VISITS_LIMIT = 1_000_000;

export function parseWorkflowEntry(
  fields: Fields,
  base: SourceBase,
  context: EntryContext,
): ToolSourceSpec | undefined {
  const name = fields.has('name') ? fields.name() : undefined;
  const description = fields.string('description', { max: 10_000 });
  const shownFile = fields.string('file', { required: true });
  const shownTools = fields.string('tools');
  const timeoutMs = fields.integer('timeoutMs', 1, MAX_TIMEOUT_MS);
  const maxVisits = fields.integer('maxVisits', 1, MAX_WORKFLOW_VISITS_LIMIT);
  const idempotent = fields.boolean('idempotent');
  const secretArgs = fields.stringList('secretArgs');
  const concurrency = fields.integer('concurrency', 1, 10_000);
  const maxResultBytes = fields.integer('maxResultBytes', 1, MAX_RESULT_BYTES_LIMIT);
  if (secretArgs && new Set(secretArgs).size !== secretArgs.length) {
    fields.problem('secretArgs', 'lists an argument twice');
  }
  if (shownFile === undefined) return undefined;
  const place = (shown: string) => ({
    shown,
    path: isAbsolute(shown) ? shown : resolve(context.baseDir, shown),
    display:
      isAbsolute(shown) || context.file === undefined
        ? resolve(context.baseDir, shown)
        : join(dirname(context.file), shown),
  });
  const file = place(shownFile);
  return {
    ...base,
    kind: 'workflow',
    spec: {
      ...(name !== undefined ? { name } : {}),
      ...(description !== undefined ? { description } : {}),
      workflowPath: file.path,
      shownFile,
      displayFile: file.display,
      ...(shownTools !== undefined ? { toolsFile: place(shownTools) } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(maxVisits !== undefined ? { maxVisits } : {}),
      ...(idempotent !== undefined ? { idempotent } : {}),
      ...(secretArgs && secretArgs.length > 0 ? { secretArgs } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(maxResultBytes !== undefined ? { maxResultBytes } : {}),
    },
  };
}
