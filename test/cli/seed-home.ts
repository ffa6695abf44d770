/** Builds a Weft home with runs recorded at chosen times, for `weft runs` and `weft prune`. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { databasePath } from '../../src/store/run-paths.js';
import type { EventRecord, RunOwner, StoredRunStatus } from '../../src/store/run-store.js';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';

export interface SeededRun {
  readonly runId: string;
  readonly status: StoredRunStatus;
  /** How long ago the run was created, in milliseconds. */
  readonly ageMs: number;
  readonly owner?: RunOwner;
  /** A task-end output (over 4 KiB it becomes a blob). */
  readonly output?: string;
  /** Files to write in `<home>/runs/<runId>/`, path → content. */
  readonly files?: Record<string, string>;
}

export const DAY_MS = 86_400_000;

export async function seedRuns(home: string, runs: readonly SeededRun[]): Promise<void> {
  for (const run of runs) {
    const at = new Date(Date.now() - run.ageMs);
    const store = openSqliteRunStore(databasePath(home), { now: () => at });
    try {
      await store.createRun({
        runId: run.runId,
        task: `task of ${run.runId}`,
        model: 'sim:seed=1',
        options: {},
        ...(run.owner ? { owner: run.owner } : {}),
      });
      const events: EventRecord[] = [{ type: 'run-start', at: 0 }];
      if (run.output !== undefined)
        events.push({ type: 'task-end', at: 1, taskId: 'a', output: run.output } as EventRecord);
      await store.appendEvents(run.runId, events);
      await store.savePlanVersion({
        runId: run.runId,
        version: 1,
        workflow: { task: 't', subtasks: [{ id: 'a', objective: 'do a', agent: 'w', dependsOn: [] }] },
        cause: 'initial plan',
      });
      if (run.status !== 'running') await store.setStatus(run.runId, run.status);
    } finally {
      await store.close();
    }
    for (const [path, content] of Object.entries(run.files ?? {})) {
      const file = join(home, 'runs', run.runId, path);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, content);
    }
  }
}

/** The pid of a process that has exited. */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined || child.pid <= 0) throw new Error('could not start a child process');
  return child.pid;
}

/**
 * A real sim run in `home`, cancelled (as by Ctrl-C) right after its second accepted subtask, for the resume
 * tests. Six subtasks, so work is left to resume.
 */
export async function cancelledSimRun(home: string) {
  const { openRunStore } = await import('../../src/store/open-store.js');
  const { runTask } = await import('../../src/run/run-task.js');
  const { createModel } = await import('../../src/llm/resolve-model.js');
  const store = await openRunStore({ home });
  const controller = new AbortController();
  let accepted = 0;
  try {
    return await runTask({
      task: 'write a short story in six parts',
      model: await createModel('sim:seed=8,tasks=6,latency=fixed(5)'),
      store,
      home,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'task-verify' && event.verdict === 'accept' && ++accepted === 2) controller.abort();
      },
    });
  } finally {
    await store.close();
  }
}
