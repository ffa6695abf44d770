/**
 * The run family (Flow): `weft plan`, `run`, `resume` and `show`: planning and running a task, and reading a recorded
 * run. Two functions, because `weft --help` lists commands in registration order and `worker` (operations) sits
 * between `resume` and `show` there.
 * Light, like every registration: a command's module loads only when it runs, so `weft --help` stays fast.
 */
import type { Command } from 'commander';
import { RUN_DEFAULTS } from '../../run-defaults.js';
import { addBudgetOptions } from '../budget-options.js';
import { collect, type CommandContext } from '../command-context.js';

export function registerRunCommands(
  program: Command,
  context: CommandContext,
  strategies: readonly string[] | undefined,
): void {
  const { output, streams, signal, setExit } = context;
  const { home, model, otel, otelContent, store, json: jsonOption } = context.options;
  program
    .command('plan')
    .description('generate K candidate plans and show them with their metrics')
    .argument('<task>', 'the task in words, or a file that holds it')
    .option('--candidates <K>', `number of candidate plans (default ${RUN_DEFAULTS.candidates})`)
    .option('--out <file>', 'write the chosen plan (for `weft run --plan`)')
    .option('--format <format>', 'text (default), json (the chosen plan) or worfbench (node chain + edges)')
    .option('--team <file>', 'offer this DyLAN team file to the planner as an agent (repeatable)', collect, [])
    .option('--no-planner-scope', 'do not ask for implementation-only subtasks with an output format each')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (task: string, flags) =>
      setExit(await (await import('./plan-command.js')).planCommand(task, flags, output, signal)),
    );

  addBudgetOptions(program.command('run'))
    .description('plan and run a task (or run a given plan), verifying and repairing as it goes')
    .argument('[task]', 'the task in words, or a file that holds it (not with --plan: a plan carries its task)')
    .option('--plan <file>', 'run this workflow (JSON or YAML) instead of planning')
    .option(
      '--strategy <name>',
      `plan updates: ${(strategies ?? [RUN_DEFAULTS.strategy])
        .map((name) => (name === RUN_DEFAULTS.strategy ? `${name} (default)` : name))
        .join(', ')}`,
    )
    .option('--concurrency <N>', 'at most N subtasks at once')
    .option('--candidates <K>', `candidate plans (default ${RUN_DEFAULTS.candidates})`)
    .option('--update-candidates <K>', 'candidate revisions per plan update (default: --candidates)')
    .option('--max-attempts <N>', `starts per subtask before giving it up (default ${RUN_DEFAULTS.maxAttempts})`)
    .option('--no-verify', 'skip the per-subtask double-check')
    .option('--no-retry-feedback', "do not tell a retry its earlier attempts and the verifier's reasons")
    .option('--no-planner-scope', 'do not ask the planner for implementation-only subtasks with an output format each')
    .option('--no-needed-by', 'do not show an agent the objectives of the subtasks that need its result')
    .option('--no-minimal-updates', 'do not ask the inspector for the smallest change the failures require')
    .option(
      '--inject-mask <P>',
      'fault injection: hand "none" instead of each first result to the children, with probability P',
    )
    .option('--seed <S>', 'seed for --inject-mask')
    .option(
      '--check <command>',
      'task success: run this shell command in the artifacts folder after the run (exit 0 = success)',
    )
    .option('--judge-model <spec>', 'task success: ask this model whether the result accomplishes the task')
    .option('--check-timeout <S>', 'deadline of each check in seconds (default 120)')
    .option(
      '--workers <url>',
      'run subtasks on `weft worker` processes through BullMQ on this Redis, e.g. redis://127.0.0.1:6379',
    )
    .option('--team <file>', 'offer this DyLAN team file to the planner as an agent (repeatable)', collect, [])
    .option('--tools <file>', 'a tools file: roles that list tools call them in a bounded tool loop')
    .option('--max-tool-steps <N>', 'model calls per tool loop that may call tools (default 8)')
    .option('--max-tool-calls <N>', 'budget: tool calls')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (task: string | undefined, flags) =>
      setExit(await (await import('./run-command.js')).runCommand(task, flags, output, streams, signal)),
    );

  program
    .command('resume')
    .description('continue an interrupted or cancelled run where its log ends')
    .argument('<runId>')
    .option('--workers <url>', 'run the remaining subtasks on `weft worker` processes through this Redis')
    .option('--tools <file>', 'the tools file to load instead of the one the run was started with')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (runId: string, flags) =>
      setExit(await (await import('./resume-command.js')).resumeCommand(runId, flags, output, streams, signal)),
    );
}

/** `weft show`, registered apart from the others so that `weft --help` keeps its order (`worker` comes before it). */
export function registerShowCommand(program: Command, context: CommandContext): void {
  const { output, setExit } = context;
  const { home, store, json: jsonOption } = context.options;
  program
    .command('show')
    .description('show a recorded run')
    .argument('<runId>')
    .option('--mermaid', 'print the final plan as Mermaid')
    .option('--dot', 'print the final plan as Graphviz DOT')
    .option('--history', 'replay how the plan changed: each version, its cause, its diff and its candidates')
    .option('--output <subtask>', "print that subtask's accepted output (the whole of it; report.md may cut it)")
    .option(
      '--attempts <subtask>',
      'print each attempt of that subtask: what a retry was told, its whole output (accepted or not) and its verdict',
    )
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (runId: string, flags) =>
      setExit(await (await import('./show-command.js')).showCommand(runId, flags, output)),
    );
}
