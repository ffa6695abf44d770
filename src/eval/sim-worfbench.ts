/**
 * What the `sim:` model answers to a WorfBench generation (purpose `worfbench`, worfbench-prompt.ts): the task and
 * its action list are the last user message → a workflow text (`Node:` lines `k: text`, then
 * `Edge: (START,1) …`): n nodes (from `tasks`), each a fragment of the task text (so a lexical similarity gives
 * partial credit), and a random DAG with edges only from lower to higher numbers, START before every node without
 * a parent and END after every node without a child. `badjson` replaces it by a reply cut inside its `Node:`
 * header (no usable workflow).
 */
import { bernoulli, integerSample, pick, shuffled, uniformSample, type RandomSource } from '../llm/seeded-random.js';
import { simLastUserMessage } from '../llm/sim-call-text.js';
import type { SimOptions } from '../llm/sim-options.js';
import type { SimResponder } from '../llm/sim-responders.js';
import { WORFBENCH_PURPOSE } from './worfbench-prompt.js';

/** WorfBench's responder by purpose (src/sim-responders.ts registers it). */
export const worfbenchSimResponders: Readonly<Record<string, SimResponder>> = Object.freeze({
  [WORFBENCH_PURPOSE]: {
    respond: ({ call, options, stream }) => {
      const text = simWorkflowText(simLastUserMessage(call), options, stream('worfbench'));
      return bernoulli(stream('badjson'), options.badjson)
        ? text.slice(0, integerSample(stream('badjson-cut'), 1, 4))
        : text;
    },
  },
});

/**
 * A seeded workflow in WorfBench's text form for a task: nodes are fragments of the task text, edges a random
 * DAG from lower to higher numbers, closed with START and END so every node lies on a START→END path.
 */
export function simWorkflowText(task: string, options: Pick<SimOptions, 'tasks'>, random: RandomSource): string {
  const count = integerSample(random, options.tasks.min, options.tasks.max);
  const pool = taskFragments(task);
  const available = shuffled(random, pool);
  const nodes = Array.from({ length: count }, (_, index) => available[index] ?? pick(random, pool));
  const density = uniformSample(random, 0.1, 0.5);
  const edges: [number, number][] = [];
  for (let to = 2; to <= count; to++) {
    for (let from = 1; from < to; from++) if (random() < density) edges.push([from, to]);
  }
  const hasParent = new Set(edges.map(([, to]) => to));
  const hasChild = new Set(edges.map(([from]) => from));
  const written = [
    ...nodes.flatMap((_, index) => (hasParent.has(index + 1) ? [] : [`(START,${index + 1})`])),
    ...edges.map(([from, to]) => `(${from},${to})`),
    ...nodes.flatMap((_, index) => (hasChild.has(index + 1) ? [] : [`(${index + 1},END)`])),
  ];
  return ['Node:', ...nodes.map((node, index) => `${index + 1}: ${node}`), `Edge: ${written.join(' ')}`].join('\n');
}

/** Sentence-sized pieces of a task (3 to 20 words, plain characters), or a stand-in when it has none. */
function taskFragments(task: string): string[] {
  const fragments = task
    .split(/\[SEP\]|[\n.;!?]/)
    .map((piece) =>
      piece
        .replace(/[^\p{L}\p{N}\s'/-]/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((piece) => !/^(node|edges?|graph)\b/i.test(piece))
    .map((piece) => piece.split(' ').slice(0, 20).join(' '))
    .filter((piece) => piece.split(' ').length >= 3);
  return fragments.length > 0 ? [...new Set(fragments)] : ['carry out the task'];
}
