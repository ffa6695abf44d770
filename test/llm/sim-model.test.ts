import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { WeftError, isAbortError } from '../../src/errors.js';
import type { CallTag, ChatCall } from '../../src/llm/chat-model.js';
import { parseJsonLoose } from '../../src/llm/extract-json.js';
import { withRetries } from '../../src/llm/retry.js';
import { simModel } from '../../src/llm/sim-model.js';
import { REVISED_SUFFIX, simPlan, type SimPlan } from '../../src/plan/sim-flow-responders.js';
import { mulberry32 } from '../../src/llm/seeded-random.js';
import { generateStructured } from '../../src/llm/structured-output.js';

afterEach(() => {
  vi.useRealTimers();
});

const planCall = (attempt: number, task = 'Build a Gobang game'): ChatCall => ({
  system: "You are Weft's planner.",
  messages: [{ role: 'user', content: `<task>\n${task}\n</task>\n\nPlan this task as a workflow.` }],
  tag: { purpose: 'plan', key: 'plan', attempt },
});

const verifyCall = (output: string, key = 't1', attempt = 1): ChatCall => ({
  messages: [
    {
      role: 'user',
      content: `<task>\nT\n</task>\n\n<objective>\nO\n</objective>\n\n<output>\n${output}\n</output>\n\nDoes it?`,
    },
  ],
  tag: { purpose: 'verify', key, attempt },
});

const updateCall = (subtasks: object[], failed: string[]): ChatCall => ({
  messages: [
    {
      role: 'user',
      content: [
        '<task>\nT\n</task>',
        `<workflow>\n${JSON.stringify({ task: 'T', subtasks }, null, 1)}\n</workflow>`,
        '<completed>none yet</completed>',
        `<failed>${failed.join(', ')}</failed>`,
        'Revise the workflow if needed.',
      ].join('\n\n'),
    },
  ],
  tag: { purpose: 'update', key: 'update', attempt: 1 },
});

const tagged = (tag: CallTag, content = 'hello'): ChatCall => ({ messages: [{ role: 'user', content }], tag });

function levelsOf(plan: SimPlan): Map<string, number> {
  const level = new Map<string, number>();
  for (const subtask of plan.subtasks) {
    level.set(subtask.id, 1 + Math.max(0, ...subtask.dependsOn.map((d) => level.get(d) ?? Number.NaN)));
  }
  return level;
}

function expectValidPlan(plan: SimPlan, min: number, max: number): void {
  const n = plan.subtasks.length;
  expect(n).toBeGreaterThanOrEqual(min);
  expect(n).toBeLessThanOrEqual(max);
  expect(plan.subtasks.map((s) => s.id)).toEqual(Array.from({ length: n }, (_, i) => `t${i + 1}`));
  expect(plan.roles.length).toBeGreaterThanOrEqual(2);
  expect(plan.roles.length).toBeLessThanOrEqual(3);
  const roles = new Set(plan.roles.map((r) => r.name));
  plan.subtasks.forEach((subtask, index) => {
    expect(roles.has(subtask.agent)).toBe(true);
    expect(subtask.objective.length).toBeGreaterThan(0);
    expect(new Set(subtask.dependsOn).size).toBe(subtask.dependsOn.length);
    for (const dependency of subtask.dependsOn) expect(Number(dependency.slice(1))).toBeLessThan(index + 1);
  });
}

describe('simModel', () => {
  it('is labelled sim with a canonical id', () => {
    const model = simModel('seed=7,fail=0.1');
    expect(model.kind).toBe('sim');
    expect(model.id).toBe('sim:latency=fixed(0),fail=0.1,badjson=0,error=0,accuracy=1,seed=7,tasks=4-8');
    expect(simModel({}, { id: 'sim:custom' }).id).toBe('sim:custom');
    expect(() => simModel({ fail: 2 })).toThrow(WeftError);
  });

  it('plans a seeded random valid DAG from the <task>', async () => {
    const model = simModel('seed=3,tasks=3-9');
    for (let attempt = 1; attempt <= 20; attempt++) {
      const result = await model.generate(planCall(attempt));
      const plan = JSON.parse(result.text) as SimPlan;
      expectValidPlan(plan, 3, 9);
      expect(plan.subtasks[0]?.objective).toContain('Build a Gobang game');
      expect(result.model).toBe('sim');
    }
  });

  it('gives different candidates for different attempts and for repeated calls, the same for the same seed', async () => {
    const model = simModel('seed=11');
    const texts = new Set<string>();
    for (let attempt = 1; attempt <= 5; attempt++) texts.add((await model.generate(planCall(attempt))).text);
    texts.add((await model.generate(planCall(1))).text); // second call with attempt 1: counter 1
    expect(texts.size).toBe(6);
    const again = simModel('seed=11');
    expect((await again.generate(planCall(1))).text).toBe((await simModel('seed=11').generate(planCall(1))).text);
    expect((await simModel('seed=12').generate(planCall(1))).text).not.toBe((await again.generate(planCall(2))).text);
  });

  it('keeps every level within `width`', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 30 }),
        (seed, width, count) => {
          const plan = simPlan('task', { tasks: { min: count, max: count }, width }, mulberry32(seed));
          expectValidPlan(plan, count, count);
          const counts = new Map<number, number>();
          for (const level of levelsOf(plan).values()) counts.set(level, (counts.get(level) ?? 0) + 1);
          for (const size of counts.values()) expect(size).toBeLessThanOrEqual(width);
        },
      ),
    );
  });

  it('always plans valid DAGs', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 0, max: 15 }),
        (seed, min, extra) => {
          expectValidPlan(simPlan('x', { tasks: { min, max: min + extra } }, mulberry32(seed)), min, min + extra);
        },
      ),
    );
  });

  it('executes deterministically', async () => {
    const model = simModel();
    expect((await model.generate(tagged({ purpose: 'execute', key: 't4', attempt: 2 }))).text).toBe(
      'sim output for t4 (attempt 2)',
    );
  });

  it('verifies: missing output → replan, else fail decides', async () => {
    const sure = simModel('fail=0');
    for (const output of ['none', '  none  ', '']) {
      expect(JSON.parse((await sure.generate(verifyCall(output))).text)).toEqual({
        verdict: 'replan',
        reason: 'output is missing',
      });
    }
    expect(JSON.parse((await sure.generate(verifyCall('a result'))).text)).toEqual({
      verdict: 'accept',
      reason: 'meets the objective',
    });
    expect(JSON.parse((await sure.generate(verifyCall('none of this is missing'))).text).verdict).toBe('accept');
    const failing = simModel('fail=1');
    expect(JSON.parse((await failing.generate(verifyCall('a result'))).text)).toEqual({
      verdict: 'replan',
      reason: 'simulated verification failure',
    });
  });

  it('fails verification at about the `fail` rate', async () => {
    const model = simModel('fail=0.3,seed=5');
    let failures = 0;
    for (let i = 0; i < 1000; i++) {
      const verdict = JSON.parse((await model.generate(verifyCall('x', `t${i}`))).text) as { verdict: string };
      if (verdict.verdict === 'replan') failures++;
    }
    expect(failures).toBeGreaterThan(250);
    expect(failures).toBeLessThan(350);
  });

  it('updates: suffixes failed objectives once, {} when nothing failed', async () => {
    const model = simModel();
    const subtasks = [
      { id: 't1', objective: 'Write rules', agent: 'coder', dependsOn: [], status: 'completed' },
      { id: 't2', objective: `Write AI${REVISED_SUFFIX}`, agent: 'coder', dependsOn: ['t1'], status: 'failed' },
      { id: 't3', objective: 'Write UI', agent: 'writer', dependsOn: ['t1'], status: 'failed' },
    ];
    const answer = JSON.parse((await model.generate(updateCall(subtasks, ['t2', 't3']))).text);
    expect(answer).toEqual({
      subtasks: [
        { id: 't1', objective: 'Write rules', agent: 'coder', dependsOn: [] },
        { id: 't2', objective: 'Write AI (revised)', agent: 'coder', dependsOn: ['t1'] },
        { id: 't3', objective: 'Write UI (revised)', agent: 'writer', dependsOn: ['t1'] },
      ],
    });
    expect(JSON.parse((await model.generate(updateCall(subtasks, []))).text)).toEqual({});
  });

  it('answers by accuracy and falls back to "sim reply"', async () => {
    expect(JSON.parse((await simModel('accuracy=1').generate(tagged({ purpose: 'answer', key: 'q1' }))).text)).toEqual({
      answer: 'correct',
      reasoning: 'sim: worked it out',
    });
    expect(
      JSON.parse((await simModel('accuracy=0').generate(tagged({ purpose: 'answer', key: 'q1' }))).text).answer,
    ).toMatch(/^wrong-[1-3]$/);
    expect((await simModel().generate(tagged({ purpose: 'other' }))).text).toBe('sim reply');
    expect((await simModel().generate({ messages: [{ role: 'user', content: 'untagged' }] })).text).toBe('sim reply');
  });

  it('estimates usage and counts calls', async () => {
    const model = simModel();
    const call = tagged({ purpose: 'execute', key: 'k', attempt: 1 }, '12345678');
    const result = await model.generate(call);
    expect(result.usage).toEqual({ inputTokens: 2, outputTokens: Math.ceil(result.text.length / 4) });
    await model.generate(call);
    expect(model.callCount).toBe(2);
  });

  it('throws retryable PROVIDER errors at the `error` rate, and retries get past them', async () => {
    const always = simModel('error=1');
    await expect(always.generate(tagged({ purpose: 'execute', key: 't1' }))).rejects.toMatchObject({
      code: 'PROVIDER',
      retryable: true,
      message: 'simulated provider error (HTTP 503)',
    });
    const flaky = simModel('error=0.5,seed=2');
    const model = withRetries(flaky, { retries: 30, sleep: async () => {} });
    for (let i = 0; i < 20; i++) {
      expect((await model.generate(tagged({ purpose: 'execute', key: `t${i}`, attempt: 1 }))).text).toBe(
        `sim output for t${i} (attempt 1)`,
      );
    }
    expect(flaky.callCount).toBeGreaterThan(20);
  });

  it('draws a transport retry of the same call anew (seeded), so retries recover from `error` as independent draws would', async () => {
    // The run's recorder fixes each call's identity (tag.sequence): a retry of that call must not repeat its fate.
    const leftAfterRetries = async (seed: number): Promise<string[]> => {
      const model = withRetries(simModel(`error=0.3,seed=${seed}`), { retries: 3, sleep: async () => {} });
      const failed: string[] = [];
      for (let i = 0; i < 200; i++) {
        await model
          .generate(tagged({ purpose: 'execute', key: `t${i}`, attempt: 1, sequence: 0 }))
          .catch(() => failed.push(`t${i}`));
      }
      return failed;
    };
    const failed = await leftAfterRetries(1);
    // Independent draws leave 200 · 0.3⁴ ≈ 1.6 failures; the same draw repeated would leave about 60.
    expect(failed.length).toBeLessThanOrEqual(6);
    expect(await leftAfterRetries(1)).toEqual(failed);
    // The retry's reply is the call's reply: only the fault and the latency are drawn anew.
    const plain = await simModel('seed=4').generate(tagged({ purpose: 'execute', key: 'k', attempt: 2, sequence: 0 }));
    const retried = await simModel('seed=4').generate(
      tagged({ purpose: 'execute', key: 'k', attempt: 2, sequence: 0, retry: 2 }),
    );
    expect(retried.text).toBe(plain.text);
  });

  it('makes structured replies malformed at the `badjson` rate, beyond repair', async () => {
    const model = simModel('badjson=1');
    const verdict = z.object({ verdict: z.enum(['accept', 'replan']) });
    const bad = (await model.generate(verifyCall('x'))).text;
    expect(() => JSON.parse(bad)).toThrow();
    const loose = parseJsonLoose(bad);
    expect(loose.ok && verdict.safeParse(loose.value).success).toBe(false);
    await expect(generateStructured(model, verifyCall('x'), verdict)).rejects.toMatchObject({ code: 'PARSE' });
    for (const call of [planCall(1), updateCall([{ id: 't1', objective: 'o', agent: 'a', dependsOn: [] }], ['t1'])]) {
      const text = (await model.generate(call)).text;
      expect(() => JSON.parse(text)).toThrow();
    }
    expect((await model.generate(tagged({ purpose: 'execute', key: 't1', attempt: 1 }))).text).toBe(
      'sim output for t1 (attempt 1)',
    );
  });

  it('recovers from occasional bad JSON through re-prompts', async () => {
    const model = simModel('badjson=0.3,seed=4');
    const verdict = z.object({ verdict: z.enum(['accept', 'replan']) });
    let repaired = 0;
    for (let i = 0; i < 50; i++) {
      const out = await generateStructured(model, verifyCall('x', `t${i}`), verdict, { maxRepairs: 10 });
      if (out.attempts > 1) repaired++;
    }
    expect(repaired).toBeGreaterThan(0);
  });

  it('uses no timer for zero latency', async () => {
    vi.useFakeTimers();
    const model = simModel();
    const pending = model.generate(tagged({ purpose: 'execute', key: 't1' }));
    expect(vi.getTimerCount()).toBe(0);
    await expect(pending).resolves.toBeDefined();
  });

  it('waits the sampled latency and can be aborted while waiting', async () => {
    vi.useFakeTimers();
    const model = simModel('latency=fixed(100)');
    let done = false;
    const pending = model.generate(tagged({ purpose: 'execute', key: 't1' })).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);

    const controller = new AbortController();
    const aborted = simModel('latency=lognormal(8,0.1)')
      .generate(tagged({ purpose: 'execute', key: 't1' }), controller.signal)
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect(isAbortError(await aborted)).toBe(true);
  });

  it('runs 10,000 zero-latency calls, with no timer (benches measure the speed)', async () => {
    const model = simModel('fail=0.1,error=0.05');
    const results = await Promise.all(
      Array.from({ length: 10_000 }, (_, i) =>
        model.generate(tagged({ purpose: 'execute', key: `t${i}`, attempt: 1 })).then(
          () => 'ok',
          () => 'error',
        ),
      ),
    );
    expect(results.filter((result) => result === 'ok').length).toBeGreaterThan(9_000);
    expect(model.callCount).toBe(10_000);
  });
});

describe('sim determinism', () => {
  const purposes = ['plan', 'execute', 'verify', 'update', 'answer', 'other'] as const;
  const tagArbitrary = fc.record({
    purpose: fc.constantFrom(...purposes),
    key: fc.constantFrom('t1', 't2', 't3', 'plan'),
    attempt: fc.integer({ min: 1, max: 3 }),
  });

  const callFor = (tag: CallTag): ChatCall => {
    switch (tag.purpose) {
      case 'plan':
        return { ...planCall(tag.attempt ?? 1), tag };
      case 'verify':
        return { ...verifyCall('some output'), tag };
      case 'update':
        return { ...updateCall([{ id: 't1', objective: 'o', agent: 'a', dependsOn: [] }], ['t1']), tag };
      default:
        return tagged(tag);
    }
  };

  /** The reply (or error code) of each call, by tag and by its occurrence among calls with the same tag. */
  async function outcomes(
    spec: string,
    tags: readonly CallTag[],
    order: readonly number[],
    concurrent: boolean,
  ): Promise<Map<string, string>> {
    const model = simModel(spec);
    const occurrence = new Map<string, number>();
    const keyed = tags.map((tag) => {
      const id = JSON.stringify(tag);
      const n = occurrence.get(id) ?? 0;
      occurrence.set(id, n + 1);
      return `${id}#${n}`;
    });
    const result = new Map<string, string>();
    // Calls with the same tag keep their relative order (the counter is what tells them apart).
    const seenTag = new Map<string, number>();
    const run = async (index: number): Promise<void> => {
      const id = JSON.stringify(tags[index]);
      const n = seenTag.get(id) ?? 0;
      seenTag.set(id, n + 1);
      const text = await model.generate(callFor(tags[index]!)).then(
        (r) => r.text,
        (e: unknown) => `error:${(e as WeftError).code}`,
      );
      result.set(`${id}#${n}`, text);
    };
    if (concurrent) await Promise.all(order.map(run));
    else for (const index of order) await run(index);
    expect(new Set(result.keys())).toEqual(new Set(keyed));
    return result;
  }

  it('gives the same reply per (tag, occurrence) whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(tagArbitrary, { minLength: 1, maxLength: 25 }).chain((tags) =>
          fc.tuple(
            fc.constant(tags),
            fc.shuffledSubarray(
              tags.map((_, i) => i),
              { minLength: tags.length },
            ),
            fc.boolean(),
          ),
        ),
        fc.integer({ min: 0, max: 1000 }),
        async ([tags, order, concurrent], seed) => {
          const spec = `seed=${seed},fail=0.5,badjson=0.3,error=0.3,accuracy=0.5,latency=fixed(0)`;
          const inOrder = await outcomes(
            spec,
            tags,
            tags.map((_, i) => i),
            false,
          );
          const shuffledRun = await outcomes(spec, tags, order, concurrent);
          expect(shuffledRun).toEqual(inOrder);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps plan shapes when only failure rates change', async () => {
    const a = await simModel('seed=9,error=0,badjson=0').generate(planCall(2));
    const b = await simModel('seed=9,fail=0.9,accuracy=0.1').generate(planCall(2));
    expect(a.text).toBe(b.text);
  });
});
