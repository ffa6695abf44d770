/**
 * The batches of `weft exec --inputs` as the dashboard reads them from the store (docs/contracts.md#batches):
 * the manifest, the owner and the counts, read-only — the dashboard never takes or releases a batch. Batches an
 * older Weft left in `<home>/batches/` folders are listed by name only, with how to import them (their files are
 * not read).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { batchManifestSchema } from '../distill/batch-store.js';
import { MAX_WORKFLOW_FILE_BYTES, parseExecutableWorkflow } from '../distill/read-workflow-file.js';
import { BATCH_ID_PATTERN, type BatchCounts, type BatchInfo, type BatchStore } from '../store/batch-records.js';
import { type LivenessProbe, ownerState } from '../store/run-owner.js';
import { layoutWorkflow, type WorkflowLayout } from './layout-workflow.js';

const GRAPH_CACHE = 8;

export type ShownManifest = z.infer<typeof batchManifestSchema>;

/** The batch reads the dashboard makes; both stores have them. */
export type BatchReader = Pick<BatchStore, 'listBatches' | 'getBatch' | 'batchCounts' | 'batchResults'>;

/** `running`: a live process has it; `finished`: every case has a result; `stopped`: neither (a resume goes on). */
export type BatchStatus = 'running' | 'finished' | 'stopped' | 'unreadable';

export interface BatchSummaryRow extends Partial<BatchCounts> {
  readonly batchId: string;
  readonly status: BatchStatus;
  readonly createdAt?: string;
  readonly workflow?: string;
  readonly cases?: number;
  readonly notRun?: number;
  /** Why the batch cannot be shown (a damaged manifest, a folder of an older Weft). */
  readonly problem?: string;
}

/** A stored batch as a summary row, with its manifest when it is readable. */
export async function batchSummary(
  store: BatchReader,
  info: BatchInfo,
  probe?: LivenessProbe,
): Promise<BatchSummaryRow & { manifest?: ShownManifest }> {
  const parsed = batchManifestSchema.safeParse(info.manifest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      batchId: info.batchId,
      status: 'unreadable',
      problem: `its manifest is not a batch manifest: ${issue?.path.join('.') || 'the document'}: ${issue?.message}`,
    };
  }
  const manifest = parsed.data;
  if (info.importing)
    return { batchId: info.batchId, status: 'stopped', problem: 'being imported from a folder of an older Weft' };
  const counts = await store.batchCounts(info.batchId);
  const live = info.owner !== undefined && ownerState(info.owner, probe) !== 'gone';
  return {
    batchId: info.batchId,
    status: live ? 'running' : counts.results >= manifest.inputs.cases ? 'finished' : 'stopped',
    createdAt: manifest.createdAt,
    workflow: manifest.workflow.path,
    cases: manifest.inputs.cases,
    ...counts,
    notRun: Math.max(0, manifest.inputs.cases - counts.results),
    manifest,
  };
}

/** Batch folders an older Weft left under `<home>/batches/` that the store does not have, newest first. */
export async function legacyBatchFolders(home: string, known: ReadonlySet<string>): Promise<BatchSummaryRow[]> {
  let names: string[];
  try {
    names = await readdir(join(home, 'batches'));
  } catch {
    return [];
  }
  return names
    .filter((name) => BATCH_ID_PATTERN.test(name) && !known.has(name))
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
    .map((batchId) => ({
      batchId,
      status: 'unreadable' as const,
      problem: `a batch folder of an older Weft; \`weft exec --resume ${batchId}\` imports it into the store`,
    }));
}

/** The workflow graphs of batches, laid out once per workflow file content. */
export function batchGraphs(): (
  manifest: ShownManifest,
) => Promise<{ layout: WorkflowLayout; name: string } | { problem: string }> {
  // Laid-out graphs by the workflow file's sha256: the file is read and hashed on every look, laid out once.
  const graphs = new Map<string, { layout: WorkflowLayout; name: string }>();
  return async (manifest) => {
    // The workflow lives where the user keeps it. It is shown only when its bytes are still the ones the batch ran
    // (the manifest's sha256): then it is that workflow, and a planted manifest cannot make the dashboard show
    // some other file.
    let text: string;
    try {
      const handle = await open(manifest.workflow.path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      try {
        const info = await handle.stat();
        if (!info.isFile()) return { problem: `${manifest.workflow.path} is not a regular file` };
        if (info.size > MAX_WORKFLOW_FILE_BYTES)
          return { problem: `${manifest.workflow.path} is over ${MAX_WORKFLOW_FILE_BYTES} bytes` };
        const bytes = Buffer.alloc(info.size);
        const { bytesRead } = await handle.read(bytes, 0, info.size, 0);
        const hash = createHash('sha256').update(bytes.subarray(0, bytesRead)).digest('hex');
        if (hash !== manifest.workflow.sha256)
          return {
            problem: `the workflow file ${manifest.workflow.path} changed since the batch started (its sha256 differs), so its graph is not shown`,
          };
        text = bytes.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        problem: `cannot read the workflow file ${manifest.workflow.path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}`,
      };
    }
    const known = graphs.get(manifest.workflow.sha256);
    if (known) return known;
    const parsed = await parseExecutableWorkflow(text, manifest.workflow.path);
    if (!parsed.workflow) {
      const first = parsed.problems.find((problem) => problem.severity === 'error');
      return {
        problem: `the workflow file ${manifest.workflow.path} does not check${first ? `: ${first.path ?? ''} ${first.message}` : ''}`,
      };
    }
    const graph = { name: parsed.workflow.name, layout: layoutWorkflow(parsed.workflow) };
    graphs.set(manifest.workflow.sha256, graph);
    if (graphs.size > GRAPH_CACHE) graphs.delete(graphs.keys().next().value!);
    return graph;
  };
}
