/**
 * The eval reports API: `GET /api/reports` (every report found, with its kind and headline numbers, or the problem
 * that keeps it from showing), `GET /api/reports/:id` (its tables and histograms) and `GET
 * /api/reports/:id/file?path=P` (a file the report links, e.g. a distilled workflow kept by `weft distill eval
 * --out`: only a file the report lists, read from inside its folder, report-linked-file.ts). Where reports come from
 * (docs/contracts.md#eval-reports-in-the-dashboard): the files and folders given to `weft serve --reports` (a
 * folder: its `*.json` files, one level down), and `weft bench worfbench`'s `scores.json` under the home's
 * `bench/worfbench/*` folders. A report found in a folder must resolve inside it: a symbolic link out of the folder
 * is listed with its problem, never read (a file or folder the user names is followed). Reads only; a file is read at
 * most MAX_REPORT_BYTES, and parsed again only when its size or time changed.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import type { Hono } from 'hono';
import { badInputReply, notFoundReply } from './api-replies.js';
import { type ReadReport, readEvalReport } from './eval-report-file.js';
import { readLinkedFile } from './report-linked-file.js';

export interface ReportRoutesOptions {
  /** Report files, or folders of them (`weft serve --reports`). */
  readonly reports?: readonly string[];
  /** The Weft home: its `bench/worfbench/<setup>/scores.json` are listed too. */
  readonly home?: string;
}

export const MAX_REPORT_BYTES = 20_000_000;
const MAX_REPORTS = 500;
const CACHE = 64;

interface Found {
  readonly id: string;
  readonly path: string;
  readonly source: 'reports' | 'home';
  /**
   * The real path of the folder it was found in, which it must resolve inside: a symbolic link out of it is not
   * followed. Unset for a file the user named itself (followed wherever it leads).
   */
  readonly within?: string;
}

/** Read-only, not blocking on a pipe named like a report (a folder or a device is refused after the open). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export function registerReportRoutes(app: Hono, options: ReportRoutesOptions): void {
  const cache = new Map<string, { stamp: string; read: ReadReport }>();

  const load = async ({ path, within }: Found): Promise<ReadReport> => {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      // Found in a folder: opened at its real path, once that is known to be inside the folder, and not through a
      // link there (a link swapped in between the two is refused, not followed).
      const real = within === undefined ? path : await realpath(path);
      if (within !== undefined && !real.startsWith(`${within}${sep}`))
        return { problem: `${path}: a symbolic link that leads out of its folder; the dashboard does not follow it` };
      handle = await open(real, within === undefined ? READ_FLAGS : READ_FLAGS | (constants.O_NOFOLLOW ?? 0));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        problem: `${path}: cannot read it: ${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}`,
      };
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { problem: `${path}: not a regular file` };
      if (info.size > MAX_REPORT_BYTES)
        return { problem: `${path}: ${info.size} bytes; the dashboard reads reports of at most ${MAX_REPORT_BYTES}` };
      const stamp = `${info.size}:${info.mtimeMs}:${info.ino}`;
      const cached = cache.get(path);
      if (cached?.stamp === stamp) return cached.read;
      const bytes = Buffer.alloc(info.size);
      const { bytesRead } = await handle.read(bytes, 0, info.size, 0);
      const text = bytes.subarray(0, bytesRead).toString('utf8');
      const read = text.includes('\u0000')
        ? { problem: `${path}: binary, not a JSON report` }
        : readEvalReport(text, path);
      cache.delete(path);
      cache.set(path, { stamp, read });
      if (cache.size > CACHE) cache.delete(cache.keys().next().value!);
      return read;
    } finally {
      await handle.close();
    }
  };

  const find = async (): Promise<Found[]> => {
    const found: Found[] = [];
    const add = (path: string, source: Found['source'], within?: string) => {
      if (found.length < MAX_REPORTS && !found.some((entry) => entry.path === path))
        found.push({ id: reportId(path), path, source, ...(within !== undefined ? { within } : {}) });
    };
    // The user named these files and folders: a named file or folder is followed wherever it leads, but what a
    // folder holds must stay in it (a link to a file elsewhere, or to a folder, is listed with its problem).
    for (const given of options.reports ?? []) {
      const path = resolve(given);
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory()) {
        const within = await realpath(path).catch(() => path);
        const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
        for (const entry of entries
          .filter((item) => (item.isFile() || item.isSymbolicLink()) && item.name.endsWith('.json'))
          .sort(byName))
          add(join(path, entry.name), 'reports', within);
      } else add(path, 'reports'); // a missing file is listed with its problem, not dropped without a word
    }
    if (options.home !== undefined) {
      const bench = join(options.home, 'bench', 'worfbench');
      const within = await realpath(bench).catch(() => bench);
      const setups = await readdir(bench, { withFileTypes: true }).catch(() => []);
      for (const setup of setups.filter((item) => item.isDirectory()).sort(byName)) {
        const scores = join(bench, setup.name, 'scores.json');
        if ((await stat(scores).catch(() => undefined))?.isFile()) add(scores, 'home', within);
      }
    }
    return found;
  };

  app.get('/api/reports', async (c) => {
    const reports = [];
    for (const entry of await find()) {
      const read = await load(entry);
      reports.push({
        id: entry.id,
        path: entry.path,
        name: basename(entry.path),
        source: entry.source,
        ...('report' in read
          ? { kind: read.report.kind, title: read.report.title, stats: read.report.stats }
          : { problem: read.problem }),
      });
    }
    return c.json({ reports });
  });

  app.get('/api/reports/:id', async (c) => {
    const entry = (await find()).find((candidate) => candidate.id === c.req.param('id'));
    if (!entry) return notFoundReply(c, `No report ${JSON.stringify(c.req.param('id').slice(0, 100))}`);
    const read = await load(entry);
    return c.json({ id: entry.id, path: entry.path, source: entry.source, ...read });
  });

  app.get('/api/reports/:id/file', async (c) => {
    const entry = (await find()).find((candidate) => candidate.id === c.req.param('id'));
    if (!entry) return notFoundReply(c, `No report ${JSON.stringify(c.req.param('id').slice(0, 100))}`);
    const path = c.req.query('path') ?? '';
    const read = await load(entry);
    // Only what the report links: nothing else in its folder is served, whatever the path.
    if (!('report' in read) || !(read.report.files ?? []).includes(path))
      return notFoundReply(c, `The report links no file ${JSON.stringify(path.slice(0, 200))}`);
    const file = await readLinkedFile(entry.path, path);
    if ('problem' in file) return badInputReply(c, file.problem);
    return c.json({ id: entry.id, report: entry.path, path, ...file });
  });
}

/** A report's id in URLs: from its path, so it stays the same while the server runs and across restarts. */
export function reportId(path: string): string {
  return createHash('sha256').update(path).digest('hex').slice(0, 16);
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
