/**
 * `weft exec FILE --inputs cases.jsonl` and `weft exec --resume BATCH`: a batch of cases through one
 * workflow with no model, durable in the run store (SQLite or Postgres; docs/contracts.md), in this process or on BullMQ
 * workers (`--workers redis://…`). Exit 0 when every case passed, 1 when some failed or erred, 2 on bad input,
 * 130 when stopped (SIGINT/SIGTERM) with the command that resumes it.
 */
import { lstat, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  acquireBatch,
  type BatchManifest,
  type BatchResult,
  type BatchStore,
  type BatchSummary,
  batchStoreOf,
  checkBatchId,
  createBatch,
  createExecCaseQueue,
  DEFAULT_MAX_VISITS,
  type ExecutableWorkflow,
  hashFile,
  loadToolsFile,
  loadWorkflowFile,
  newBatchId,
  importBatchFolder,
  parseBatchManifest,
  readBatchCases,
  redactUrl,
  runBatch,
  defaultJobs,
  casesInFlight,
  runCaseIsolated,
  scanBatchCases,
  type CaseRunner,
  type ToolSet,
  WeftError,
} from '../../internal.js';
import { createBatchProgress } from './batch-progress.js';
import { type Context, loadContext, openStore, storePlace } from '../context.js';
import { integerFlag } from '../flags.js';
import { type IsolationLimits, isolationLimits } from './isolation-limits.js';
import type { Output, Streams } from '../output.js';

export interface ExecBatchFlags {
  readonly tools?: string;
  readonly inputs?: string;
  readonly concurrency?: string;
  readonly out?: string;
  readonly workers?: string;
  readonly resume?: string;
  readonly rerunInterrupted?: boolean;
  readonly maxVisits?: string;
  readonly timeLimit?: string;
  readonly workerMemory?: string;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
}

/** Failing cases listed in the text summary; the rest are in `--out`. */
const LISTED_FAILURES = 20;
/** With workers, cases in flight: chunks of 25 (exec-case-queue.ts) for 16 workers' 1 job each and more. */
const DEFAULT_WORKER_CONCURRENCY = 500;
const MAX_CONCURRENCY = 10_000;

export async function execBatchCommand(
  file: string | undefined,
  flags: ExecBatchFlags,
  output: Output,
  streams: Streams,
  signal: AbortSignal,
): Promise<number> {
  const context = await loadContext(flags);
  const limits = isolationLimits(flags, context.config);
  const concurrencyFlag = integerFlag('concurrency', flags.concurrency, { min: 1 });
  // Each unit is a loop awaiting the next case: a hundred million of them is memory, not speed.
  if (concurrencyFlag !== undefined && concurrencyFlag > MAX_CONCURRENCY)
    throw new WeftError('BAD_INPUT', `--concurrency expects at most ${MAX_CONCURRENCY}, got ${concurrencyFlag}`, {
      location: { field: '--concurrency' },
    });
  const maxVisitsFlag = integerFlag('max-visits', flags.maxVisits, { min: 1 });
  if (flags.resume !== undefined) checkBatchId(flags.resume);
  const store = batchStoreOf(await openStore(context));
  try {
    return await execBatch(file, flags, output, streams, signal, {
      context,
      store,
      concurrencyFlag,
      maxVisitsFlag,
      limits,
    });
  } finally {
    await store.close();
  }
}

interface BatchSetup {
  readonly context: Context;
  readonly store: BatchStore & { close(): Promise<void> };
  readonly concurrencyFlag: number | undefined;
  readonly maxVisitsFlag: number | undefined;
  readonly limits: IsolationLimits;
}

async function execBatch(
  file: string | undefined,
  flags: ExecBatchFlags,
  output: Output,
  streams: Streams,
  signal: AbortSignal,
  { context, store, concurrencyFlag, maxVisitsFlag, limits }: BatchSetup,
): Promise<number> {
  let manifest: BatchManifest;
  let resuming = false;
  if (flags.resume !== undefined) {
    if (file !== undefined || flags.inputs !== undefined)
      throw new WeftError('BAD_INPUT', '--resume takes no FILE or --inputs: the batch resumes with its own', {
        location: { field: '--resume' },
      });
    manifest = await storedManifest(store, context, flags.resume);
    resuming = true;
    // A batch keeps the cap it started with: its cases are judged alike.
    const started = manifest.options.maxVisits ?? DEFAULT_MAX_VISITS;
    if (maxVisitsFlag !== undefined && maxVisitsFlag !== started)
      throw new WeftError('BAD_INPUT', `the batch was started with --max-visits ${started}`, {
        location: { field: '--max-visits' },
      });
    await checkUnchanged(manifest);
    if (manifest.options.out !== undefined)
      await checkOutPath(manifest.options.out, [
        manifest.inputs.path,
        manifest.workflow.path,
        ...(manifest.tools ? [manifest.tools.path] : []),
      ]);
    if (flags.tools !== undefined && resolve(flags.tools) !== manifest.tools?.path)
      throw new WeftError(
        'BAD_INPUT',
        `the batch was started with ${manifest.tools ? `--tools ${manifest.tools.path}` : 'no --tools'}`,
        {
          location: { field: '--tools' },
        },
      );
  } else {
    if (file === undefined)
      throw new WeftError('BAD_INPUT', 'weft exec needs a workflow FILE (or --resume BATCH)', {
        location: { field: 'FILE' },
      });
    if (flags.inputs === undefined)
      throw new WeftError('BAD_INPUT', '--inputs is missing', { location: { field: '--inputs' } });
    if (flags.out !== undefined)
      await checkOutPath(flags.out, [flags.inputs, file, ...(flags.tools !== undefined ? [flags.tools] : [])]);
    const [workflowHash, scan] = await Promise.all([hashFile(file).catch(() => ''), scanBatchCases(flags.inputs)]);
    manifest = {
      version: 1,
      batchId: newBatchId(),
      createdAt: new Date().toISOString(),
      workflow: { path: resolve(file), sha256: workflowHash },
      ...(flags.tools !== undefined ? { tools: { path: resolve(flags.tools) } } : {}),
      inputs: { path: resolve(flags.inputs), sha256: scan.sha256, cases: scan.cases },
      options: {
        concurrency: concurrencyFlag ?? (flags.workers ? DEFAULT_WORKER_CONCURRENCY : inProcessConcurrency(limits)),
        ...(maxVisitsFlag !== undefined ? { maxVisits: maxVisitsFlag } : {}),
        ...(flags.out !== undefined ? { out: resolve(flags.out) } : {}),
        ...(flags.workers !== undefined ? { workers: redactUrl(flags.workers).display } : {}),
      },
    };
  }
  const tools: ToolSet | undefined = manifest.tools ? await openTools(manifest.tools.path, signal) : undefined;
  try {
    const toolNames = tools?.tools.map((tool) => tool.name) ?? [];
    const { workflow } = await loadWorkflowFile(manifest.workflow.path, { toolNames });
    const openQueue = () =>
      flags.workers
        ? createExecCaseQueue({
            redisUrl: flags.workers,
            batchId: manifest.batchId,
            workflow,
            tools: tools?.tools ?? [],
            ...(manifest.tools ? { toolsPath: manifest.tools.path } : {}),
            ...(manifest.options.maxVisits !== undefined ? { maxVisits: manifest.options.maxVisits } : {}),
          })
        : Promise.resolve(undefined);
    let queue: Awaited<ReturnType<typeof openQueue>>;
    if (!resuming) {
      // Hashed before it was read: a file that changed in between is caught by the resume's check, not here.
      if (manifest.workflow.sha256 === '')
        throw new WeftError('BAD_INPUT', `cannot read ${file}`, { location: { field: 'FILE' } });
      // The workers first: a bad or unreachable Redis leaves no batch behind.
      queue = await openQueue();
      await createBatch(store, manifest).catch(async (error: unknown) => {
        await queue?.close();
        throw error;
      });
    }
    const release = await acquireBatch(store, manifest.batchId).catch(async (error: unknown) => {
      await queue?.close();
      throw error;
    });
    if (resuming)
      queue = await openQueue().catch(async (error: unknown) => {
        await release();
        throw error;
      });
    if (resuming && manifest.options.workers && !queue)
      output.log(
        `batch ${manifest.batchId} was started with --workers ${manifest.options.workers}; its remaining cases run in this process (give --workers URL to use workers)`,
      );
    const progress = createBatchProgress(streams.stderr);
    let summary: BatchSummary;
    try {
      if (!output.json)
        output.log(
          `batch ${manifest.batchId}: ${manifest.inputs.cases} cases${resuming ? ' (resumed)' : ''}${queue ? ` on workers at ${redactUrl(flags.workers ?? '').display}` : ''}`,
        );
      summary = await runBatch({
        batchId: manifest.batchId,
        store,
        cases: () => readBatchCases(manifest.inputs.path),
        total: manifest.inputs.cases,
        runCase: queue ? queue.runCase : inProcess(workflow, tools, manifest.options.maxVisits, limits),
        concurrency:
          concurrencyFlag ??
          (resuming && Boolean(manifest.options.workers) !== Boolean(queue)
            ? queue
              ? DEFAULT_WORKER_CONCURRENCY
              : inProcessConcurrency(limits)
            : manifest.options.concurrency),
        ...(manifest.options.out !== undefined ? { out: { path: manifest.options.out } } : {}),
        ...(flags.rerunInterrupted ? { rerunInterrupted: true } : {}),
        onProgress: progress.update,
        signal,
      });
    } finally {
      progress.close();
      await queue?.close();
      await release();
    }
    report(summary, manifest, output);
    if (summary.stopped && summary.notRun > 0) {
      output.log(`resume with: weft exec --resume ${manifest.batchId}`);
      return 130;
    }
    return summary.failed + summary.errors > 0 ? 1 : 0;
  } finally {
    await tools?.close();
  }
}

/**
 * The manifest of a stored batch; a batch an older version left in `<home>/batches/ID/` is imported into the store
 * first (import-batch-folder.ts).
 */
async function storedManifest(store: BatchStore, context: Context, batchId: string): Promise<BatchManifest> {
  const info = await store.getBatch(batchId);
  if (info && !info.importing) return parseBatchManifest(batchId, info.manifest, storePlace(context));
  const imported = await importBatchFolder(store, context.home, batchId);
  if (imported) return imported;
  throw new WeftError('BAD_INPUT', `no batch ${batchId} in ${storePlace(context)}`, {
    location: { field: '--resume' },
  });
}

/** Cases in flight in this process: enough to keep every worker thread busy while the log gathers records. */
function inProcessConcurrency(limits: IsolationLimits): number {
  return casesInFlight(limits.jobs ?? defaultJobs());
}

function inProcess(
  workflow: ExecutableWorkflow,
  tools: ToolSet | undefined,
  maxVisits: number | undefined,
  limits: IsolationLimits,
): CaseRunner {
  const list = tools?.tools ?? [];
  // Each case in a worker thread: one that runs past its limits fails alone and the batch goes on.
  return async (item, _attempt, signal) => {
    return runCaseIsolated(workflow, {
      tools: list,
      input: item.input,
      signal,
      ...(maxVisits !== undefined ? { maxVisits } : {}),
      ...limits,
    });
  };
}

/**
 * `--out` is truncated and written before any case runs: refused when it is a directory, a symbolic link (the
 * results file is never written through one), or the same file as one the batch reads — by any spelling or hard
 * link, so compared by device and inode — and when its folder does not exist. Checked before the batch is
 * recorded, so a refused run leaves no batch behind.
 */
async function checkOutPath(out: string, inputs: readonly string[]): Promise<void> {
  const refuse = (why: string) => {
    throw new WeftError('BAD_INPUT', `--out ${out} ${why}`, { location: { field: '--out' } });
  };
  const info = await lstat(out).catch(() => undefined);
  if (!info) {
    const folder = await stat(dirname(resolve(out))).catch(() => undefined);
    if (!folder?.isDirectory()) refuse('is in a folder that does not exist');
    return;
  }
  if (info.isSymbolicLink()) refuse('is a symbolic link; give the path of the file itself');
  if (info.isDirectory()) refuse('is a directory; give a file path for the results');
  if (!info.isFile()) refuse('is not a regular file');
  for (const path of inputs) {
    const other = await stat(path).catch(() => undefined);
    if (other && other.dev === info.dev && other.ino === info.ino)
      refuse(`is the batch's own input ${path} (the results would destroy it); write the results elsewhere`);
  }
}

/** A resume runs the same workflow on the same cases: refused when either file changed since the batch started. */
async function checkUnchanged(manifest: BatchManifest): Promise<void> {
  const changed = async (path: string, sha256: string, what: string, field: string) => {
    const now = await hashFile(path).catch(() => undefined);
    if (now === undefined)
      throw new WeftError('BAD_INPUT', `batch ${manifest.batchId}: its ${what} ${path} cannot be read any more`, {
        location: { file: path, field },
      });
    if (now !== sha256)
      throw new WeftError(
        'BAD_INPUT',
        `batch ${manifest.batchId}: its ${what} ${path} changed since the batch started (sha256 ${sha256.slice(0, 12)}…, now ${now.slice(0, 12)}…); start a new batch instead`,
        { location: { file: path, field } },
      );
  };
  await changed(manifest.workflow.path, manifest.workflow.sha256, 'workflow file', 'FILE');
  await changed(manifest.inputs.path, manifest.inputs.sha256, 'cases file', '--inputs');
}

function report(summary: BatchSummary, manifest: BatchManifest, output: Output): void {
  const out = manifest.options.out;
  if (output.json) {
    output.document({
      batchId: summary.batchId,
      cases: summary.cases,
      passed: summary.passed,
      failed: summary.failed,
      errors: summary.errors,
      ...(summary.notRun > 0 ? { notRun: summary.notRun } : {}),
      results: summary.results,
      ...(summary.resultsOmitted > 0
        ? {
            resultsOmitted: summary.resultsOmitted,
            resultsNote: out
              ? `${summary.resultsOmitted} results are only in ${out}`
              : `${summary.resultsOmitted} results are not shown; use --out FILE to keep every result`,
          }
        : {}),
      ...(out ? { out } : {}),
    });
    return;
  }
  output.text(
    `batch ${summary.batchId}: ${summary.cases} cases, ${summary.passed} passed, ${summary.failed} failed, ${summary.errors} errors${summary.notRun > 0 ? `, ${summary.notRun} not run` : ''}${out ? ` (results in ${out})` : ''}`,
  );
  const failing = summary.results.filter((result) => !result.ok);
  for (const result of failing.slice(0, LISTED_FAILURES)) output.text(`  ${describeFailure(result)}`);
  const more = summary.failed + summary.errors - Math.min(failing.length, LISTED_FAILURES);
  if (more > 0) output.text(`  … and ${more} more${out ? ` (see ${out})` : ' (use --out FILE to keep every result)'}`);
}

function describeFailure(result: BatchResult): string {
  const id = JSON.stringify(result.id);
  if (result.error) return `${id}: ${result.error.code}: ${result.error.message}`.slice(0, 500);
  return `${id}: output ${JSON.stringify(result.output)?.slice(0, 200)} is not the expected one`;
}

async function openTools(path: string, signal: AbortSignal): Promise<ToolSet> {
  const absolute = isAbsolute(path) ? path : resolve(path);
  try {
    return await loadToolsFile(absolute, { signal });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new WeftError('BAD_INPUT', `no tools file ${path}`, { location: { field: '--tools' } });
    throw error;
  }
}
