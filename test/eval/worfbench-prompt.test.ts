import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import {
  WORFBENCH_EXAMPLES,
  WORFBENCH_PURPOSE,
  WORFBENCH_SYSTEM,
  worfbenchCall,
  worfbenchMessages,
} from '../../src/eval/worfbench-prompt.js';
import type { WorkflowText } from '../../src/eval/workflow-text.js';
import { goldSets } from './gold-path.js';

// The widest gold set at hand: all 1,746 records beside the repository, else the subset in it.
const GOLD = goldSets().at(-1)!.dir;

interface RawRecord {
  readonly id: string;
  readonly conversations: readonly { readonly role: string; readonly content: string }[];
}

const raw: RawRecord[] = readdirSync(GOLD)
  .filter((file) => file.endsWith('.json'))
  .flatMap((file) => JSON.parse(readFileSync(join(GOLD, file), 'utf8')) as RawRecord[]);

/** Runs of `n` consecutive words (letters only, lower case): what copying a sentence would leave behind. */
function wordRuns(text: string, n: number): Set<string> {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const runs = new Set<string>();
  for (let index = 0; index + n <= words.length; index++) runs.add(words.slice(index, index + n).join(' '));
  return runs;
}

function parsed(text: string): WorkflowText {
  const result = parseWorkflowText(text);
  if (!result.ok) throw new Error(result.issues.map((issue) => issue.message).join('; '));
  expect(result.skipped).toEqual([]);
  return result.workflow;
}

describe('worfbenchMessages', () => {
  it('ends with the record’s user message as written (task and action list), after two example turns', () => {
    for (const record of [raw[0]!, raw[raw.length - 1]!]) {
      const task = record.conversations.find((turn) => turn.role === 'user')!.content;
      const { system, messages } = worfbenchMessages({ task });
      expect(system).toBe(WORFBENCH_SYSTEM);
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(messages.at(-1)!.content).toBe(task);
    }
    const toolbench = raw.find((record) => record.id === 'toolbench_1')!;
    const task = toolbench.conversations[1]!.content;
    expect(task).toContain("api_list:[{'name': 'create_a_new_link_for_url_link_shortener'");
    expect(worfbenchMessages({ task }).messages.at(-1)!.content).toContain(
      "api_list:[{'name': 'create_a_new_link_for_url_link_shortener'",
    );
  });

  it('tags the call with the worfbench purpose and asks for greedy decoding', () => {
    const call = worfbenchCall({ task: 'Task: x' });
    expect(call.tag).toEqual({ purpose: WORFBENCH_PURPOSE });
    expect(call.temperature).toBe(0);
    expect(call.messages.at(-1)!.content).toBe('Task: x');
  });
});

describe('the two examples', () => {
  it('parse with parseWorkflowText: a function-call task with parallel branches and an embodied chain', () => {
    const [functionCall, embodied] = WORFBENCH_EXAMPLES.map((example) => parsed(example.assistant));
    expect(functionCall!.nodes).toHaveLength(4);
    // Steps 1 and 3 both start at START and meet again at step 4: two branches.
    expect(functionCall!.edges).toEqual(
      expect.arrayContaining([
        ['START', 1],
        ['START', 3],
        [2, 4],
        [3, 4],
      ]),
    );
    expect(embodied!.nodes).toHaveLength(7);
    expect(embodied!.edges).toEqual([['START', 1], ...[1, 2, 3, 4, 5, 6].map((node) => [node, node + 1]), [7, 'END']]);
  });

  it('follow the rules the system message states: chain in topological order, edges from smaller to larger numbers', () => {
    for (const example of WORFBENCH_EXAMPLES) {
      const workflow = parsed(example.assistant);
      for (const [from, to] of workflow.edges) {
        if (typeof from === 'number' && typeof to === 'number') expect(from).toBeLessThan(to);
      }
      workflow.nodes.forEach((_, index) => {
        const node = index + 1;
        expect(workflow.edges.some(([, to]) => to === node)).toBe(true);
        expect(workflow.edges.some(([from]) => from === node)).toBe(true);
      });
    }
  });

  it('use the actions their user message lists', () => {
    const [functionCall, embodied] = WORFBENCH_EXAMPLES;
    for (const name of ['resolve_date', 'weather_forecast', 'convert_currency', 'Finish']) {
      expect(functionCall!.user).toContain(`'name': '${name}'`);
      expect(functionCall!.assistant).toContain(name);
    }
    for (const verb of ['walk to', 'pick up', 'fill', 'open', 'water']) {
      expect(embodied!.user).toContain(verb);
      expect(embodied!.assistant).toContain(verb);
    }
  });
});

describe('Weft’s own words', () => {
  it('shares no run of five words with the WorfBench system prompts', () => {
    const theirs = new Set<string>();
    for (const record of raw)
      for (const turn of record.conversations)
        if (turn.role === 'system') for (const run of wordRuns(turn.content, 5)) theirs.add(run);
    expect(theirs.size).toBeGreaterThan(50);
    expect([...wordRuns(WORFBENCH_SYSTEM, 5)].filter((run) => theirs.has(run))).toEqual([]);
    for (const phrase of ['helpful task planner', 'topology diagram', 'subtask_1', 'foramt'])
      expect(WORFBENCH_SYSTEM).not.toContain(phrase);
  });

  it('takes no example from the benchmark: no run of six words in common with any gold record', () => {
    const theirs = new Set<string>();
    for (const record of raw)
      for (const turn of record.conversations) for (const run of wordRuns(turn.content, 6)) theirs.add(run);
    const ours = WORFBENCH_EXAMPLES.flatMap((example) => [...wordRuns(`${example.user}\n${example.assistant}`, 6)]);
    expect(ours.length).toBeGreaterThan(50);
    expect(ours.filter((run) => theirs.has(run))).toEqual([]);
  });
});
