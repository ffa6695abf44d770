/**
 * The examples the package ships (the examples/ folder), one entry each for `weft examples`: what it shows and the
 * command that runs it, written as run from the folder that holds examples/ (the repository root of a checkout),
 * the way the README's quick starts are: the run's `.weft` home is then the one at the root, not a second one
 * inside an example. `weft examples copy NAME DIR` keeps that layout in DIR (DIR/examples/gobang/task.md), so the
 * command runs the same from DIR and links between examples keep working. Tests check that every entry of
 * examples/ is listed here, that every path a command names exists from that folder, and run the commands.
 */
export interface ExampleEntry {
  /** The name `weft examples copy NAME` takes. */
  readonly name: string;
  /** What it shows, in one line. */
  readonly shows: string;
  /** The command that runs it, from the folder that holds examples/ or from a copy's folder. */
  readonly command: string;
  /** Its files and folders, relative to examples/ (copied as they are). */
  readonly paths: readonly string[];
}

export const EXAMPLES: readonly ExampleEntry[] = [
  {
    name: 'gobang',
    shows: "Flow: the paper's Gobang game planned, built, verified and repaired by a scripted model (no key)",
    command: 'weft run examples/gobang/task.md --model scripted:examples/gobang/replies.json',
    paths: ['gobang'],
  },
  {
    name: 'plans',
    shows: 'Flow: hand-written plans (a diamond of subtasks; a cyclic one that is refused with its location)',
    command: 'weft run --plan examples/plans/diamond.json --model sim:seed=7',
    paths: ['plans'],
  },
  {
    name: 'team-workflow',
    shows: 'Flow with DyLAN: one subtask of a plan answered by an agent team (scripted model)',
    command: 'weft run --plan examples/team-workflow/plan.json --model scripted:examples/team-workflow/replies.json',
    paths: ['team-workflow'],
  },
  {
    name: 'teams',
    shows: 'DyLAN: team files (debate, coders, a pool to optimise) and sample questions with gold answers',
    command:
      'weft team eval --team examples/teams/debate.yaml --data examples/teams/mc-sample.jsonl --model "sim:accuracy=0.7,seed=1,answers=examples/teams/mc-sample.jsonl"',
    paths: ['teams'],
  },
  {
    name: 'procedures',
    shows: 'FlowAgent: six procedures in PDL with simulated-user profiles and reference sessions',
    command: 'weft pdl show examples/procedures/order-return/order-return.pdl.yaml',
    paths: ['procedures'],
  },
  {
    name: 'workflow-tools',
    shows: 'FlowMind: distilled workflows offered as tools to a plan and a procedure (scripted model)',
    command:
      'weft run --plan examples/workflow-tools/plan.yaml --tools examples/workflow-tools/tools.yaml --model scripted:examples/workflow-tools/replies.json',
    paths: ['workflow-tools', 'distill-suite/tools', 'distill-suite/basket-total', 'distill-suite/sum-to-n'],
  },
  {
    name: 'worfbench',
    shows: "WorfBench: the OS task's 18 gold workflows (MIT, with provenance) to generate against and score",
    command: 'weft bench worfbench --data examples/worfbench/os.json --model sim:seed=7 --limit 3 --out wb',
    paths: ['worfbench'],
  },
  {
    name: 'distill-suite',
    shows: 'FlowMind: 30 tasks with reference workflows and held-out tests, for weft distill eval',
    command: 'weft workflow check examples/distill-suite/average/reference.workflow.json',
    paths: ['distill-suite'],
  },
  {
    name: 'tools',
    shows: 'Tools: http tools on the business API, a policy server, and a plan whose roles call them (see its README)',
    // The http tools' URLs name the variable; listing them needs it set, not the API running.
    command: 'BUSINESS_API_URL=http://127.0.0.1:4100 weft tools list --tools examples/tools/tools.yaml',
    paths: ['tools'],
  },
  {
    name: 'business-api',
    shows: 'the local HTTP business API (orders, cards, flights, insurance, mobile, clinic) the tool examples call',
    command: 'npm run example:api   (from a checkout of the repository)',
    paths: ['business-api'],
  },
  {
    name: 'procedure-service',
    shows: 'FlowAgent as a web service: the order-return procedure over HTTP',
    command: 'npm run example:procedure-service   (from a checkout of the repository)',
    paths: ['procedure-service'],
  },
  {
    name: 'library',
    shows: 'Weft as a library: plan, run, read back and prune a run from TypeScript',
    command: "npx tsx examples/library.ts   (it imports 'weft': a built checkout, or a project with weft installed)",
    paths: ['library.ts'],
  },
  {
    name: 'sim-fault',
    shows: "Flow: the paper's fault-injection experiment (masked outputs) with the sim: model and a --check",
    command: 'read examples/sim-fault.md: it gives the commands and the numbers they print',
    paths: ['sim-fault.md', 'sim-fault-check.mjs'],
  },
];
