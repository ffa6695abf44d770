/**
 * The single-shot WorfBench generation prompt (docs/algorithms.md#worfbench-workflow-text), in Weft's own words: a
 * system message that fixes the output format, two worked examples as earlier turns (one function-call task with
 * parallel branches, one embodied task that is a plain chain), then the record's user message (task + action list)
 * verbatim.
 */
import type { CallTag, ChatCall, ChatMessage } from '../llm/chat-model.js';

/**
 * The call purpose of a WorfBench generation. Real providers ignore it; the `sim:` model answers it with a
 * seeded workflow text.
 */
export const WORFBENCH_PURPOSE: CallTag['purpose'] = 'worfbench';

export const WORFBENCH_SYSTEM = `You are Weft's workflow planner. You receive a task together with the actions it may use
(tools, API functions, commands or moves in an environment). Break the task into the steps an agent would
carry out, then state which steps depend on which.

Reply in exactly this format and with nothing before or after it:

Node:
1: <first step>
2: <second step>
...
Edge: (START,1) (1,2) ... (n,END)

Rules for the steps:
- One step per line, written "number: text", numbered 1, 2, 3, ... without gaps.
- Each step is the smallest piece of work that one of the given actions carries out. Name that action, with
  its objects or arguments, in the step. Do not merge two actions into one step and do not add steps the task
  does not need.
- List the steps so that each one comes after every step it needs (the list is a topological order).

Rules for the edges:
- "(a,b)" means step b needs step a to be done first. START and END stand for the beginning and the end.
- Write every edge on the single "Edge:" line, separated by spaces.
- Give (START,k) for each step k that needs no other step, and (k,END) for each step k that no other step needs.
  Every step is then reachable from START and leads to END.
- Steps that do not need each other get no edge between them, so they can run at the same time.
- Edges go from a smaller number to a larger one, so there is never a cycle.`;

/** Two worked examples, written for Weft (not taken from the benchmark). */
export const WORFBENCH_EXAMPLES: readonly { readonly user: string; readonly assistant: string }[] = [
  {
    user: `Task: I am flying to Lisbon next Friday. Tell me the weather forecast there for that day, and convert 200 US dollars to euros so I know my budget.
Functions you can call: [{'name': 'resolve_date', 'description': 'Turn a relative day such as "next Friday" into a calendar date', 'parameters': {'expression': 'string'}}, {'name': 'weather_forecast', 'description': 'Forecast for a city on a given date', 'parameters': {'city': 'string', 'date': 'YYYY-MM-DD'}}, {'name': 'convert_currency', 'description': 'Convert an amount of money between two currencies', 'parameters': {'amount': 'number', 'from': 'string', 'to': 'string'}}, {'name': 'Finish', 'description': 'Give the final answer to the user'}]`,
    assistant: `Node:
1: Resolve "next Friday" into a calendar date with resolve_date
2: Get the weather forecast for Lisbon on that date with weather_forecast
3: Convert 200 USD to EUR with convert_currency
4: Give the user the forecast and the amount in euros with Finish
Edge: (START,1) (START,3) (1,2) (2,4) (3,4) (4,END)`,
  },
  {
    user: `You are a robot in a garden shed. Next to you are a shelf 1, a shelf 2, a tap 1, a workbench 1 and a door 1 that leads to the greenhouse.
Your task is to: water the tomato plant in the greenhouse with the green watering can.
Moves you can make: walk to {place}; pick up {item} from {place}; fill {item} at {place}; open {place}; water {plant} with {item}`,
    assistant: `Node:
1: walk to shelf 2
2: pick up green watering can from shelf 2
3: walk to tap 1
4: fill green watering can at tap 1
5: open door 1
6: walk to tomato plant
7: water tomato plant with green watering can
Edge: (START,1) (1,2) (2,3) (3,4) (4,5) (5,6) (6,7) (7,END)`,
  },
];

export interface WorfbenchPrompt {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
}

/** The call for one record: the examples as earlier turns, then the record's user message as written. */
export function worfbenchMessages(record: { readonly task: string }): WorfbenchPrompt {
  const messages: ChatMessage[] = [];
  for (const example of WORFBENCH_EXAMPLES) {
    messages.push({ role: 'user', content: example.user }, { role: 'assistant', content: example.assistant });
  }
  messages.push({ role: 'user', content: record.task });
  return { system: WORFBENCH_SYSTEM, messages };
}

/**
 * The whole call for one record. Greedy decoding: the baseline answers once, so sampling would only add noise.
 * The tag has no key: the runner keys each record's calls by its id.
 */
export function worfbenchCall(record: { readonly task: string }): ChatCall {
  return { ...worfbenchMessages(record), temperature: 0, tag: { purpose: WORFBENCH_PURPOSE } };
}
