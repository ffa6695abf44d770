/**
 * Several `weft resume` processes started at once on one killed run: exactly one takes it over (the store's
 * compare-and-set on the owner), the others exit 2 naming the winner's pid, and no subtask runs twice.
 */
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import { runEvents } from '../../src/run/run-events.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { deadPid } from '../cli/seed-home.js';
import { startTestPostgres } from '../store/postgres-server.js';
import { weft } from '../e2e/weft-cli.js';

const RESUMES = 4;

const started = await startTestPostgres();
const postgres = 'server' in started ? started.server : undefined;
if (postgres === undefined)
  console.log(`concurrent resume on Postgres skipped: ${'skipReason' in started ? started.skipReason : ''}`);
afterAll(async () => {
  await postgres?.stop();
});

/** The store to use: SQLite in the home, or a fresh schema of the test Postgres (dropped afterwards). */
function storeFor(kind: 'sqlite' | 'postgres'): string[] {
  if (kind === 'sqlite') return [];
  const schema = postgres!.freshSchema();
  onTestFinished(() => postgres!.dropSchema(schema));
  return ['--store', `${postgres!.url}${postgres!.url.includes('?') ? '&' : '?'}schema=${schema}`];
}

describe.each([
  ['sqlite', false],
  ['postgres', postgres === undefined],
] as const)('concurrent weft resume (%s)', (kind, skip) => {
  it.skipIf(skip)(
    `of ${RESUMES} resumes started at once on a killed run, exactly one is accepted`,
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'weft-concurrent-resume-'));
      const storeArgs = storeFor(kind);
      const open = () => openRunStore({ home, ...(storeArgs.length > 0 ? { store: storeArgs[1]! } : {}) });
      // Latency keeps the winner busy while the others start, so a lost race would show as a second run.
      const model = 'sim:seed=8,tasks=8,latency=fixed(500)';
      const store = await open();
      const controller = new AbortController();
      let accepted = 0;
      const first = await runTask({
        task: 'write a short story in eight parts',
        model: await createModel(model),
        store,
        home,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'task-verify' && event.verdict === 'accept' && ++accepted === 1) controller.abort();
        },
      });
      // What a SIGKILL leaves: still `running`, owned by a process that is gone.
      await store.setStatus(first.runId, 'running');
      await store.setOwner(first.runId, { pid: deadPid(), host: hostname() });
      await store.close();

      const results = await Promise.all(
        Array.from({ length: RESUMES }, () => weft(['resume', first.runId, '--home', home, ...storeArgs, '--json'])),
      );
      const winners = results.filter((result) => result.code !== 2);
      const refused = results.filter((result) => result.code === 2);
      expect(
        winners.map((result) => result.code),
        results.map((result) => result.stderr).join('\n---\n'),
      ).toEqual([0]);
      expect(refused).toHaveLength(RESUMES - 1);
      const after = await open();
      const winnerPid = (await after.getRun(first.runId))!.owner!.pid;
      // A loser either lost the compare-and-set or read the run after the winner took it: both name the winner. One
      // started late on a loaded machine may find the run already finished, which refuses it as well.
      for (const result of refused)
        expect(result.stderr).toMatch(
          new RegExp(`already being resumed by pid ${winnerPid}\\b|already finished \\(completed\\)`),
        );
      const events = await runEvents(after, first.runId);
      await after.close();
      expect(events.filter((event) => event.type === 'run-resume')).toHaveLength(1);
      // After the takeover, no subtask attempt starts twice (an attempt cut short by the kill restarts once).
      const resumedAt = events.findIndex((event) => event.type === 'run-resume');
      const starts = events
        .slice(resumedAt)
        .flatMap((event) => (event.type === 'task-start' ? [`${event.taskId}#${event.attempt}`] : []));
      expect(new Set(starts).size).toBe(starts.length);
    },
    120_000,
  );
});
