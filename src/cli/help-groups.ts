/**
 * What `weft --help` adds to the registered commands: the five systems as headings (each command under the paper
 * it implements) and one example at the end of every command's own help. Kept apart from the registrations so the
 * families stay about flags and actions, and so one test can walk every command and check its example.
 */
import type { Command } from 'commander';

/** The headings of `weft --help`, in order, with the top-level commands under each. */
export const HELP_GROUPS: readonly { readonly heading: string; readonly commands: readonly string[] }[] = [
  { heading: 'Plan and run (Flow):', commands: ['plan', 'run', 'resume', 'show'] },
  { heading: 'Evaluate workflows (WorfBench):', commands: ['eval', 'bench'] },
  { heading: 'Agent teams (DyLAN):', commands: ['team'] },
  {
    heading: 'Procedures (FlowAgent):',
    commands: ['pdl', 'chat', 'sessions', 'show-session', 'simulate', 'dialog'],
  },
  { heading: 'Distillation (FlowMind):', commands: ['workflow', 'exec', 'solve', 'traces', 'distill'] },
  { heading: 'Operations:', commands: ['serve', 'mcp', 'worker', 'runs', 'prune', 'tools', 'examples'] },
];

const GOBANG = 'examples/gobang/task.md --model scripted:examples/gobang/replies.json';
const ORDER_RETURN = 'examples/procedures/order-return';
const BASKET = 'examples/workflow-tools';

/**
 * One example per command path (`team eval`), each a real command on files the repository ships. Commands that
 * read the store show what a previous example left there (a run id is printed by `weft run`).
 */
export const HELP_EXAMPLES: Readonly<Record<string, string>> = {
  plan: `weft plan ${GOBANG}`,
  run: `weft run ${GOBANG}`,
  resume: 'weft resume <runId>          # the id `weft run` printed; `weft runs` lists them',
  show: 'weft show <runId> --output <subtask>',
  eval: 'weft eval examples/distill-suite/sum-to-n/reference.workflow.json --gold examples/distill-suite/average/reference.workflow.json',
  bench: 'weft bench worfbench --data test/fixtures/worfbench/os.json --model sim:seed=7 --limit 3',
  'bench worfbench': 'weft bench worfbench --data test/fixtures/worfbench/os.json --model sim:seed=7 --limit 3',
  team: 'weft team "What is 17 * 23?" --team examples/teams/debate.yaml --model sim:seed=7',
  'team run': 'weft team run "What is 17 * 23?" --team examples/teams/debate.yaml --model sim:seed=7',
  'team optimize':
    'weft team optimize --team examples/teams/pool.yaml --queries examples/teams/queries.jsonl --k 2 --model sim:seed=7',
  'team eval':
    'weft team eval --team examples/teams/debate.yaml --data examples/teams/mc-sample.jsonl --model sim:seed=7',
  'team replay': 'weft team replay test/fixtures/dylan-mmlu/mmlu_optimal7_2/business_ethics_test_23.json',
  pdl: `weft pdl check ${ORDER_RETURN}/order-return.pdl.yaml --tools examples/business-api/tools.yaml`,
  'pdl check': `weft pdl check ${ORDER_RETURN}/order-return.pdl.yaml --tools examples/business-api/tools.yaml`,
  'pdl show': `weft pdl show ${ORDER_RETURN}/order-return.pdl.yaml --mermaid`,
  chat: `weft chat ${BASKET}/basket.pdl.yaml --tools ${BASKET}/tools.yaml --model scripted:${BASKET}/chat-replies.json`,
  sessions: 'weft sessions --oldest-first',
  'show-session': 'weft show-session <sessionId>   # an id `weft sessions` lists',
  simulate: `weft simulate ${ORDER_RETURN}/order-return.pdl.yaml --profiles ${ORDER_RETURN}/profiles.jsonl --tools examples/business-api/tools.yaml --model sim: --user-model sim: --judge sim:`,
  dialog: `weft dialog eval ${ORDER_RETURN}/order-return.pdl.yaml --references ${ORDER_RETURN}/references.jsonl --tools examples/business-api/tools.yaml --model sim: --judge sim:`,
  'dialog eval': `weft dialog eval ${ORDER_RETURN}/order-return.pdl.yaml --references ${ORDER_RETURN}/references.jsonl --tools examples/business-api/tools.yaml --model sim: --judge sim:`,
  workflow: 'weft workflow check examples/distill-suite/average/reference.workflow.json',
  'workflow check': 'weft workflow check examples/distill-suite/average/reference.workflow.json',
  'workflow show': 'weft workflow show examples/distill-suite/average/reference.workflow.json --mermaid',
  exec: 'weft exec examples/distill-suite/sum-to-n/reference.workflow.json --tools examples/distill-suite/tools/kit.tools.yaml --input \'{"n": 10}\'',
  solve: `weft solve "Total of a basket" --tools ${BASKET}/tools.yaml --input '{"items": [{"sku": "MUG-02", "quantity": 2}]}' --model sim:`,
  traces: 'weft traces --oldest-first',
  'traces show': 'weft traces show <traceId>   # an id `weft traces` lists',
  distill: 'weft distill <traceId> --model sim:   # ids from `weft traces`',
  'distill eval': 'weft distill eval --suite examples/distill-suite --task average --variant pe --model sim:',
  serve: 'weft serve --port 0',
  mcp: 'weft mcp   # then point an MCP client at this command over stdio',
  worker: 'weft worker --redis redis://127.0.0.1:6379 --model sim:',
  runs: 'weft runs --oldest-first --json',
  prune: 'weft prune --older-than 30d',
  tools: `weft tools list --tools ${BASKET}/tools.yaml`,
  'tools list': `weft tools list --tools ${BASKET}/tools.yaml`,
  'tools call': `weft tools call basket_total --tools ${BASKET}/tools.yaml --args '{"items": [{"sku": "MUG-02", "quantity": 2}]}'`,
  examples: 'weft examples copy gobang ./my-gobang',
  'examples copy': 'weft examples copy gobang ./my-gobang',
};

/** A command's name with its parents' (`team eval`), the program's own left out. */
export function commandPathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * Puts each top-level command under its heading and appends the example to every command's help, subcommands
 * included. A family's line names its subcommands, so they can be found from `weft --help`.
 */
export function applyHelpGroups(program: Command): void {
  // Commander lists groups in the order their first command was registered, and commands in registration order:
  // sort the commands by their place in HELP_GROUPS (unlisted ones last) so the headings read as the systems do.
  const order = HELP_GROUPS.flatMap((group) => group.commands);
  const place = (command: Command) => {
    const at = order.indexOf(command.name());
    return at === -1 ? order.length : at;
  };
  (program.commands as Command[]).sort((a, b) => place(a) - place(b));
  for (const { heading, commands } of HELP_GROUPS) {
    for (const name of commands) program.commands.find((command) => command.name() === name)?.helpGroup(heading);
  }
  const visit = (command: Command): void => {
    for (const sub of command.commands) {
      if (sub.name() === 'help') continue;
      const example = HELP_EXAMPLES[commandPathOf(sub)];
      if (example !== undefined) sub.addHelpText('after', `\nExample:\n  ${example}\n`);
      const children = sub.commands.filter((child) => child.name() !== 'help').map((child) => child.name());
      if (children.length > 0 && !/subcommands:/.test(sub.description())) {
        sub.description(`${sub.description()} (subcommands: ${children.join(', ')})`);
      }
      visit(sub);
    }
  };
  visit(program);
}
