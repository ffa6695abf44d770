/**
 * The batches of `weft exec --inputs` as the dashboard reads them from `<home>/batches/<batchId>/`
 * (docs/contracts.md#batches): the manifest, the owner file and the log, read-only and safely — a batch folder or a
 * file in it that is a symbolic link is refused, not followed (a planted link must not lead the dashboard out of the
 * batches folder); files are opened without blocking on pipes; the manifest and owner files are bounded; the log
 * is indexed in chunks (batch-log-index.ts), never loaded whole. The lock (owner file) is only read.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { batchManifestSchema } from '../distill/batch-store.js';
import { MAX_WORKFLOW_FILE_BYTES, parseExecutableWorkflow } from '../distill/read-workflow-file.js';
import { type LivenessProbe, ownerState } from '../store/run-owner.js';
import { type BatchLogIndex, emptyLogIndex, extendLogIndex, type LogCounts, logCounts } from './batch-log-index.js';
import { layoutWorkflow, type WorkflowLayout } from './layout-workflow.js';
import { openRegularFile, readSmallFile } from './safe-batch-file.js';

/** The batch ids `weft exec` makes, and what batch-store.ts accepts. */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const MAX_MANIFEST_BYTES = 1_000_000;
const MAX_OWNER_BYTES = 4_096;
const INDEX_CACHE = 8;
const GRAPH_CACHE = 8;

export type ShownManifest = z.infer<typeof batchManifestSchema>;

/** `running`: a live process has it; `finished`: every case has a result; `stopped`: neither (a resume goes on). */
export type BatchStatus = 'running' | 'finished' | 'stopped' | 'unreadable';

export interface BatchSummaryRow extends Partial<LogCounts> {
  readonly batchId: string;
  readonly status: BatchStatus;
  readonly createdAt?: string;
  readonly workflow?: string;
  readonly cases?: number;
  readonly notRun?: number;
  /** Why the batch cannot be shown (a link, a damaged manifest). */
  readonly problem?: string;
}

export interface BatchFolders {
  /** Batch folder names, newest first (ids sort by time), with links and other non-folders marked. */
  list(): Promise<{ batchId: string; problem?: string }[]>;
  summary(batchId: string): Promise<BatchSummaryRow & { manifest?: ShownManifest }>;
  /** The log opened and indexed up to now; the caller closes the handle. */
  withLog<T>(
    batchId: string,
    use: (log: { index: BatchLogIndex; handle: Awaited<ReturnType<typeof open>> } | undefined) => Promise<T>,
  ): Promise<T>;
  workflowGraph(manifest: ShownManifest): Promise<{ layout: WorkflowLayout; name: string } | { problem: string }>;
}

export function batchFolders(home: string, probe?: LivenessProbe): BatchFolders {
  const root = join(home, 'batches');
  const indexes = new Map<string, BatchLogIndex>();
  // One indexing at a time per batch: two requests extending one index at once would count lines twice.
  const queues = new Map<string, Promise<unknown>>();
  // Laid-out graphs by the workflow file's sha256: the file is read and hashed on every look, laid out once.
  const graphs = new Map<string, { layout: WorkflowLayout; name: string }>();

  const folderProblem = async (batchId: string): Promise<string | undefined> => {
    if (!BATCH_ID_PATTERN.test(batchId)) return 'not a batch id';
    try {
      const info = await lstat(join(root, batchId));
      if (info.isSymbolicLink()) return 'the batch folder is a symbolic link; the dashboard does not follow links';
      if (!info.isDirectory()) return 'not a folder';
      return undefined;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such batch' : (error as Error).message;
    }
  };

  const withLog: BatchFolders['withLog'] = (batchId, use) => {
    const run = async () => {
      let handle: Awaited<ReturnType<typeof openRegularFile>>;
      try {
        handle = await openRegularFile(join(root, batchId, 'log.jsonl'));
      } catch {
        handle = undefined;
      }
      if (!handle) return use(undefined);
      try {
        let index = indexes.get(batchId) ?? emptyLogIndex();
        if (!(await extendLogIndex(index, handle))) {
          index = emptyLogIndex();
          await extendLogIndex(index, handle);
        }
        indexes.delete(batchId);
        indexes.set(batchId, index);
        if (indexes.size > INDEX_CACHE) indexes.delete(indexes.keys().next().value!);
        return await use({ index, handle });
      } finally {
        await handle.close();
      }
    };
    const previous = queues.get(batchId) ?? Promise.resolve();
    const next = previous.then(run, run);
    queues.set(batchId, next);
    void next
      .finally(() => {
        if (queues.get(batchId) === next) queues.delete(batchId);
      })
      .catch(() => {});
    return next;
  };

  return {
    async list() {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(root, { withFileTypes: true });
      } catch {
        return [];
      }
      return entries
        .filter((entry) => BATCH_ID_PATTERN.test(entry.name))
        .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
        .map((entry) => ({
          batchId: entry.name,
          ...(entry.isSymbolicLink()
            ? { problem: 'the batch folder is a symbolic link; the dashboard does not follow links' }
            : {}),
        }))
        .sort((a, b) => (a.batchId < b.batchId ? 1 : a.batchId > b.batchId ? -1 : 0));
    },

    async summary(batchId) {
      const problem = await folderProblem(batchId);
      if (problem) return { batchId, status: 'unreadable', problem };
      const dir = join(root, batchId);
      let manifest: ShownManifest;
      try {
        const text = await readSmallFile(join(dir, 'batch.json'), MAX_MANIFEST_BYTES);
        if (text === undefined) throw new Error('it has no batch.json');
        const parsed = batchManifestSchema.safeParse(JSON.parse(text));
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new Error(
            `batch.json is not a batch manifest: ${issue?.path.join('.') || 'the document'}: ${issue?.message}`,
          );
        }
        if (parsed.data.batchId !== batchId) throw new Error('batch.json names another batch');
        manifest = parsed.data;
      } catch (error) {
        return { batchId, status: 'unreadable', problem: `batch.json: ${(error as Error).message}` };
      }
      let owner: { pid: number; host: string } | undefined;
      try {
        const text = await readSmallFile(join(dir, 'owner.json'), MAX_OWNER_BYTES);
        const value = text === undefined ? undefined : (JSON.parse(text) as Partial<{ pid: number; host: string }>);
        if (value && typeof value.pid === 'number' && typeof value.host === 'string')
          owner = { pid: value.pid, host: value.host };
      } catch {
        owner = undefined; // torn while its process writes it, or not ours: no owner to show
      }
      const counts = await withLog(batchId, async (log) => (log ? logCounts(log.index) : undefined));
      const results = counts?.results ?? 0;
      const live = owner !== undefined && ownerState(owner, probe) !== 'gone';
      return {
        batchId,
        status: live ? 'running' : results >= manifest.inputs.cases ? 'finished' : 'stopped',
        createdAt: manifest.createdAt,
        workflow: manifest.workflow.path,
        cases: manifest.inputs.cases,
        results,
        passed: counts?.passed ?? 0,
        failed: counts?.failed ?? 0,
        errors: counts?.errors ?? 0,
        interrupted: counts?.interrupted ?? 0,
        startedWithoutResult: counts?.startedWithoutResult ?? 0,
        unreadableLines: counts?.unreadableLines ?? 0,
        notRun: Math.max(0, manifest.inputs.cases - results),
        manifest,
      };
    },

    withLog,

    async workflowGraph(manifest) {
      // The workflow lives where the user keeps it, outside the batches folder. It is shown only when its bytes
      // are still the ones the batch ran (the manifest's sha256): then it is that workflow, and a planted manifest
      // cannot make the dashboard show some other file.
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
    },
  };
}
