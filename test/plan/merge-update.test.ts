/**
 * The merge of an inspector's revision into the live plan keeps no stale work (docs/algorithms.md#plan-updates):
 * only work whose objective and dependency set are both unchanged, and none of whose ancestors runs again, is kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { SubtaskStatus, WorkflowJson } from '../../src/graph/workflow.js';
import { dependencyChange, mergeUpdate } from '../../src/plan/merge-update.js';

type Proposed = Pick<WorkflowJson, 'subtasks'>;

function merged(current: WorkflowJson, proposed: Proposed | undefined) {
  const result = mergeUpdate(workflowFromJson(current), proposed);
  if (!result.ok) throw new Error(result.issues.map((issue) => issue.message).join('; '));
  return { byId: new Map(result.workflow.subtasks.map((s) => [s.id, s])), rerun: result.discarded };
}

const live: WorkflowJson = {
  task: 'page',
  subtasks: [
    { id: 'header', objective: 'write the header', agent: 'w', dependsOn: [], status: 'completed', output: 'H1' },
    { id: 'body', objective: 'write the body', agent: 'w', dependsOn: ['header'], status: 'completed', output: 'B1' },
    { id: 'footer', objective: 'write the footer', agent: 'w', dependsOn: ['body'], status: 'in progress' },
    { id: 'side', objective: 'write the sidebar', agent: 'w', dependsOn: [], status: 'completed', output: 'S1' },
  ],
};

describe('mergeUpdate', () => {
  it('runs a completed subtask again when the update gives it a new parent, and says why', () => {
    const { byId, rerun } = merged(live, {
      subtasks: [
        { id: 'data', objective: 'gather the data', agent: 'w', dependsOn: [] },
        ...live.subtasks.map((s) => (s.id === 'header' ? { ...s, dependsOn: ['data'] } : s)),
      ],
    });
    expect(byId.get('header')).toMatchObject({ status: 'not started' });
    expect(byId.get('header')?.output).toBeUndefined();
    // Every descendant of header loses its work too, the running footer included; side is untouched.
    expect(byId.get('body')).toMatchObject({ status: 'not started' });
    expect(byId.get('footer')).toMatchObject({ status: 'not started' });
    expect(byId.get('side')).toMatchObject({ status: 'completed', output: 'S1' });
    expect(rerun).toEqual([
      { id: 'header', reason: 'dependencies changed: +data' },
      { id: 'body', reason: 'depends on header, which runs again' },
      { id: 'footer', reason: 'depends on body, which runs again' },
    ]);
  });

  it('names a removed dependency and a changed objective', () => {
    const { rerun } = merged(live, {
      subtasks: live.subtasks.map((s) =>
        s.id === 'body' ? { ...s, dependsOn: [] } : s.id === 'side' ? { ...s, objective: 'write a wider sidebar' } : s,
      ),
    });
    expect(rerun).toEqual([
      { id: 'body', reason: 'dependencies changed: -header' },
      { id: 'footer', reason: 'depends on body, which runs again' },
      { id: 'side', reason: 'objective changed' },
    ]);
  });

  it('keeps work whose objective and dependencies are unchanged, whatever the order or the agent', () => {
    const { byId, rerun } = merged(live, {
      subtasks: [...live.subtasks].reverse().map((s) => ({ ...s, agent: 'senior' })),
    });
    expect(rerun).toEqual([]);
    expect(byId.get('body')).toMatchObject({ status: 'completed', output: 'B1', agent: 'senior' });
    expect(byId.get('footer')).toMatchObject({ status: 'in progress' });
  });

  it('an empty revision changes nothing', () => {
    expect(merged(live, undefined).rerun).toEqual([]);
  });

  it('dependencyChange lists additions then removals, and nothing for the same set', () => {
    expect(dependencyChange(['a', 'b'], ['b', 'c'])).toBe('+c, -a');
    expect(dependencyChange(['a', 'b'], ['b', 'a'])).toBeUndefined();
  });
});

/**
 * A random live plan, executed part-way: each completed output records the parent set and the parents' outputs it
 * was computed from. Then a random revision: ids kept or dropped, new ones added, objectives changed, dependencies
 * redrawn over a new order.
 */
const scenario = fc
  .record({
    size: fc.integer({ min: 1, max: 9 }),
    edges: fc.array(fc.boolean(), { minLength: 81, maxLength: 81 }),
    progress: fc.array(fc.constantFrom('done', 'done', 'running', 'failed', 'idle'), { minLength: 9, maxLength: 9 }),
    keep: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
    rewrite: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 9, maxLength: 9 }),
    added: fc.integer({ min: 0, max: 3 }),
    order: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 12, maxLength: 12 }),
    newEdges: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 144, maxLength: 144 }),
  })
  .map((draw) => {
    const ids = Array.from({ length: draw.size }, (_, index) => `s${index}`);
    const computedWith = new Map<string, { parents: string[]; inputs: string[] }>();
    const subtasks: WorkflowJson['subtasks'] = [];
    const state = new Map<string, { status: SubtaskStatus; output?: string }>();
    ids.forEach((id, index) => {
      const dependsOn = ids.slice(0, index).filter((_, parent) => draw.edges[index * 9 + parent]);
      const parentsDone = dependsOn.every((parent) => state.get(parent)?.status === 'completed');
      const wanted = draw.progress[index];
      let status: SubtaskStatus = 'not started';
      if (parentsDone && wanted === 'done') status = 'completed';
      else if (parentsDone && wanted === 'running') status = 'in progress';
      else if (parentsDone && wanted === 'failed') status = 'failed';
      const inputs = dependsOn.map((parent) => state.get(parent)?.output ?? '');
      const output = status === 'completed' ? `${id}(${inputs.join(',')})` : undefined;
      if (status === 'completed' || status === 'in progress') computedWith.set(id, { parents: dependsOn, inputs });
      state.set(id, { status, ...(output !== undefined ? { output } : {}) });
      subtasks.push({
        id,
        objective: `do ${id}`,
        agent: 'w',
        dependsOn,
        status,
        attempts: status === 'not started' ? 0 : 1,
        ...(output !== undefined ? { output } : {}),
      });
    });
    const kept = ids.filter((_, index) => draw.keep[index] || draw.rewrite[index] === 0);
    // A plan lists at least one subtask.
    const added = kept.length === 0 ? Math.max(1, draw.added) : draw.added;
    const nextIds = [...kept, ...Array.from({ length: added }, (_, index) => `n${index}`)];
    // A random order of the new plan; dependencies only point backwards in it, so the revision is acyclic.
    const order = nextIds
      .map((id, index) => ({ id, rank: draw.order[index] ?? 0 }))
      .sort((left, right) => left.rank - right.rank || left.id.localeCompare(right.id))
      .map((entry) => entry.id);
    const old = new Map(subtasks.map((s) => [s.id, s]));
    const proposed: Proposed = {
      subtasks: order.map((id, position) => {
        const before = old.get(id);
        const index = Number(id.slice(1));
        const rewrite = before ? draw.rewrite[index]! : 4;
        // 0-1: the same objective and dependencies (those still in the plan, kept in order); 2: a new objective;
        // 3-4: dependencies redrawn.
        const earlier = order.slice(0, position);
        const redrawn = earlier.filter((_, k) => draw.newEdges[(position * 12 + k) % 144]! < 2);
        const dependsOn =
          before && rewrite <= 2 ? before.dependsOn.filter((parent) => earlier.includes(parent)) : redrawn;
        return {
          id,
          objective: before && rewrite !== 2 ? before.objective : `do ${id} anew`,
          agent: 'w',
          dependsOn,
        };
      }),
    };
    return { current: { task: 'random', subtasks } satisfies WorkflowJson, proposed, computedWith };
  });

describe('mergeUpdate on random plans and revisions', () => {
  it('keeps no output computed from another parent set or from parent outputs that will change', () => {
    fc.assert(
      fc.property(scenario, ({ current, proposed, computedWith }) => {
        const result = mergeUpdate(workflowFromJson(current), proposed);
        if (!result.ok) throw new Error(result.issues.map((issue) => issue.message).join('; '));
        const after = new Map(result.workflow.subtasks.map((s) => [s.id, s]));
        const before = new Map(current.subtasks.map((s) => [s.id, s]));
        for (const subtask of result.workflow.subtasks) {
          if (subtask.status !== 'completed' && subtask.status !== 'in progress') continue;
          const recorded = computedWith.get(subtask.id);
          expect(recorded, `${subtask.id} keeps work it never did`).toBeDefined();
          // The parent set it was computed with is the one it has now.
          expect([...subtask.dependsOn].sort()).toEqual([...recorded!.parents].sort());
          // And each parent still holds the output it read.
          const inputs = recorded!.parents.map((parent) => after.get(parent)?.output ?? '');
          expect(inputs).toEqual(recorded!.inputs);
          for (const parent of subtask.dependsOn) expect(after.get(parent)?.status).toBe('completed');
          expect(subtask.objective).toBe(before.get(subtask.id)?.objective);
          if (subtask.status === 'completed') expect(subtask.output).toBe(before.get(subtask.id)?.output);
        }
        // Nothing valid is thrown away: work lost is exactly what `discarded` names, each with a reason.
        const lost = result.workflow.subtasks
          .filter((s) => {
            const old = before.get(s.id)?.status;
            return (old === 'completed' || old === 'in progress') && s.status === 'not started';
          })
          .map((s) => s.id);
        expect(result.discarded.map((work) => work.id)).toEqual(lost);
        for (const work of result.discarded) {
          const old = before.get(work.id)!;
          const now = after.get(work.id)!;
          const rewired = dependencyChange(old.dependsOn, now.dependsOn);
          if (old.objective !== now.objective) expect(work.reason).toBe('objective changed');
          else if (rewired !== undefined) expect(work.reason).toBe(`dependencies changed: ${rewired}`);
          else {
            // Its objective and parents are the same: it runs again only because a parent does.
            const parent = /^depends on (\S+), which runs again$/.exec(work.reason)?.[1];
            expect(now.dependsOn).toContain(parent);
            expect(after.get(parent!)?.status).toBe('not started');
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
