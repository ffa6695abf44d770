/**
 * What the `sim:` model answers to Flow's calls, from the tags of this folder's prompts (prompts.ts):
 * - `plan`: the task in `<task>…</task>` → `{"roles":[{name,prompt}],"subtasks":[{id,objective,agent,dependsOn}]}`,
 *   a random valid DAG with ids `t1…tn` (n from `tasks`), edges only from lower to higher ids; with `width`,
 *   levels of at most `width` subtasks.
 * - `execute` → `sim output for <key> (attempt <attempt>)`, followed by ` [missing input from a, b]` naming the
 *   parents (`<input from="a">` blocks) whose output is `none` or itself names a missing input.
 * - `verify`: the output under review in `<output>…</output>` → `replan` ("output is missing") when it is
 *   empty or `none`; else `replan` with probability `fail`; else `accept`.
 * - `update`: the workflow JSON in `<workflow>…</workflow>`, ids to repair in `<failed>a, b</failed>` and the
 *   completed results in `<result id="a">` blocks → the same subtasks with the objective of each failed one and of
 *   each whose result is `none` suffixed ` (revised)` (once), or `{}` when there is none.
 * `badjson` cuts the plan, verdict and update replies inside their first key (src/llm/sim-bad-json.ts).
 */
import { parseJsonLoose } from '../llm/extract-json.js';
import type { CallTag } from '../llm/chat-model.js';
import { bernoulli, integerSample, pick, shuffled, uniformSample, type RandomSource } from '../llm/seeded-random.js';
import { simMaybeBadJson } from '../llm/sim-bad-json.js';
import { simTagContent, simUserText } from '../llm/sim-call-text.js';
import type { SimOptions } from '../llm/sim-options.js';
import type { SimResponder } from '../llm/sim-responders.js';

/** Flow's responders by purpose (src/sim-responders.ts registers them). */
export const flowSimResponders: Readonly<Record<string, SimResponder>> = Object.freeze({
  plan: {
    respond: (context) =>
      simMaybeBadJson(
        JSON.stringify(simPlan(simTagContent(context.call, 'task') ?? '', context.options, context.stream('plan'))),
        context,
      ),
  },
  execute: { respond: (context) => simExecute(context.tag, simUserText(context.call)) },
  verify: {
    respond: (context) =>
      simMaybeBadJson(
        JSON.stringify(
          simVerdict(simTagContent(context.call, 'output', true), context.options.fail, context.stream('fail')),
        ),
        context,
      ),
  },
  update: {
    respond: (context) =>
      simMaybeBadJson(
        JSON.stringify(
          simUpdate(
            simTagContent(context.call, 'workflow'),
            simTagContent(context.call, 'failed'),
            simUserText(context.call),
          ),
        ),
        context,
      ),
  },
});

const ROLE_NAMES = ['planner', 'coder', 'writer', 'reviewer'] as const;

export const REVISED_SUFFIX = ' (revised)';

export interface SimPlan {
  roles: { name: string; prompt: string }[];
  subtasks: { id: string; objective: string; agent: string; dependsOn: string[] }[];
}

/** A seeded random valid plan: ids t1…tn, edges only from lower to higher ids. */
export function simPlan(task: string, options: Pick<SimOptions, 'tasks' | 'width'>, random: RandomSource): SimPlan {
  const count = integerSample(random, options.tasks.min, options.tasks.max);
  const roles = shuffled(random, ROLE_NAMES).slice(0, integerSample(random, 2, 3));
  const density = uniformSample(random, 0.1, 0.5);
  const topic = summarize(task);
  const dependsOn: string[][] = Array.from({ length: count }, () => []);
  if (options.width === undefined) {
    for (let j = 1; j < count; j++) {
      for (let i = 0; i < j; i++) if (random() < density) dependsOn[j]!.push(`t${i + 1}`);
    }
  } else {
    // Levels of 1..width subtasks; each subtask below the first level depends on one subtask of the level
    // just above (so its level is exact) and, rarely, on earlier ones.
    const levels: number[][] = [];
    for (let index = 0; index < count; ) {
      const size = Math.min(count - index, integerSample(random, 1, options.width));
      levels.push(Array.from({ length: size }, (_, k) => index + k));
      index += size;
    }
    for (let level = 1; level < levels.length; level++) {
      const above = levels[level - 1]!;
      const earlier = levels.slice(0, level - 1).flat();
      for (const node of levels[level]!) {
        const parents = new Set<number>([pick(random, above)]);
        for (const candidate of [...above, ...earlier]) if (random() < density / 2) parents.add(candidate);
        dependsOn[node] = [...parents].sort((a, b) => a - b).map((parent) => `t${parent + 1}`);
      }
    }
  }
  return {
    roles: roles.map((name) => ({ name, prompt: `You are the ${name}.` })),
    subtasks: dependsOn.map((parents, index) => {
      const agent = pick(random, roles);
      return {
        id: `t${index + 1}`,
        objective: `Part ${index + 1} of ${count} (${agent}) of: ${topic}`,
        agent,
        dependsOn: parents,
      };
    }),
  };
}

function simVerdict(
  output: string | undefined,
  fail: number,
  random: RandomSource,
): { verdict: 'accept' | 'replan'; reason: string } {
  const trimmed = output?.trim();
  if (trimmed === '' || trimmed === 'none') return { verdict: 'replan', reason: 'output is missing' };
  if (bernoulli(random, fail)) return { verdict: 'replan', reason: 'simulated verification failure' };
  return { verdict: 'accept', reason: 'meets the objective' };
}

/** A parent's output that says its work is missing: the mask itself, or work built on a masked input. */
const MISSING_INPUT = 'missing input from';
const INPUT_BLOCK = /<input from="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/input>/g;
const RESULT_BLOCK = /<result id="([^"]*)">\n([\s\S]*?)\n<\/result>/g;

/**
 * The agent carries on with what it is given, as the Flow paper observes of a masked input: a parent output of
 * `none` (or one that was itself built on such) is named in the reply, so an independent check can tell.
 */
function simExecute(tag: CallTag, prompt: string): string {
  const reply = `sim output for ${tag.key ?? 'task'} (attempt ${tag.attempt ?? 1})`;
  const missing = [...prompt.matchAll(INPUT_BLOCK)]
    .filter(([, , output]) => output!.trim() === 'none' || output!.includes(MISSING_INPUT))
    .map(([, id]) => id!);
  return missing.length === 0 ? reply : `${reply} [${MISSING_INPUT} ${missing.join(', ')}]`;
}

/** Whether a sim run's outputs are all sound: none is masked or built on a masked input (the bench's check). */
export function simOutputSound(output: string | undefined): boolean {
  return output !== undefined && output.trim() !== 'none' && output.trim() !== '' && !output.includes(MISSING_INPUT);
}

function simUpdate(workflowText: string | undefined, failedText: string | undefined, prompt: string): object {
  const failed = new Set(
    (failedText ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
  // A review that sees a completed result of `none` revises that subtask, so it runs again (and what it feeds, too).
  for (const [, id, output] of prompt.matchAll(RESULT_BLOCK)) if (output!.trim() === 'none') failed.add(id!);
  if (failed.size === 0 || workflowText === undefined) return {};
  const parsed = parseJsonLoose(workflowText);
  if (!parsed.ok) return {};
  const subtasks = (parsed.value as { subtasks?: unknown }).subtasks;
  if (!Array.isArray(subtasks)) return {};
  return {
    subtasks: subtasks.filter(isRecord).map((raw) => {
      const id = String(raw.id);
      const objective = String(raw.objective ?? '');
      return {
        id,
        objective: failed.has(id) && !objective.endsWith(REVISED_SUFFIX) ? `${objective}${REVISED_SUFFIX}` : objective,
        agent: raw.agent,
        dependsOn: Array.isArray(raw.dependsOn) ? raw.dependsOn : [],
      };
    }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function summarize(task: string): string {
  const line = task.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line || 'the task';
}
