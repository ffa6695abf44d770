/**
 * Weft as a library: plan a task, run the plan, read the run back from the store, then prune it. Uses the `sim:`
 * model (deterministic, offline, no key) and a temporary Weft home. Run it with `npx tsx examples/library.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModel, openRunStore, planTask, pruneRuns, runEvents, runTask, summarizeRun } from 'weft';

const task = 'Write a short guide to brewing tea';
const home = await mkdtemp(join(tmpdir(), 'weft-example-'));
try {
  // Any model spec works here: 'openai:gpt-4o-mini', 'anthropic:…', 'ollama:…', or the simulated 'sim:'.
  const model = await createModel('sim:seed=7,tasks=4');

  // Plan: three candidate workflows, the most parallel one chosen.
  const plan = await planTask({ task, model, candidates: 3 });
  console.log(
    `plan: ${plan.workflow.subtasks.length} subtasks (candidate ${plan.chosenIndex + 1} of ${plan.candidates.length})`,
  );

  const store = await openRunStore({ home });
  try {
    // Run: executes that plan with verification, recording every event in the store; the run folder goes in the
    // home the store was opened on. The handle streams the events as they happen; awaiting it gives the result.
    const run = runTask({ task, model, store, plan: plan.workflow, run: { concurrency: 2 } });
    let taskEnds = 0;
    for await (const event of run.events) if (event.type === 'task-end') taskEnds += 1;
    const result = await run;
    const completed = result.tasks.filter((subtask) => subtask.status === 'completed').length;
    console.log(
      `run ${result.runId}: ${result.status}, ${completed}/${result.tasks.length} subtasks completed, ${result.calls} model calls`,
    );

    // Show: the summary is a fold of the stored events, the same one `weft show` prints.
    const events = await runEvents(store, result.runId);
    const summary = summarizeRun(result.runId, events);
    console.log(
      `stored summary: ${summary.status}, plan version ${summary.planVersion}, ${summary.tasks.length} subtasks`,
    );

    // Prune: everything created before now (a live run would be kept).
    const pruned = await pruneRuns(store, { home, before: new Date(Date.now() + 1000) });
    console.log(
      `pruned ${pruned.removed.length} run(s), ${pruned.bytesFreed} bytes freed; ${(await store.listRuns()).length} left`,
    );
    console.log(`${taskEnds} task-end events streamed`);
  } finally {
    await store.close();
  }
} finally {
  await rm(home, { recursive: true, force: true });
}
