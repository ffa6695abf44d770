/**
 * The `weft team` commands' options and help. Light on purpose: each subcommand's module loads when it runs
 * (see main.ts), so `weft --help` does not load the team engine.
 */
import type { Command } from 'commander';
import { WeftError } from '../../errors.js';
import { addBudgetOptions } from '../budget-options.js';
import type { CommandContext } from '../command-context.js';
import type { TeamFlags } from './team-command-support.js';
import type { TeamEvalFlags } from './team-eval-command.js';
import type { TeamOptimizeFlags } from './team-optimize-command.js';
import type { TeamReplayFlags } from './team-replay-command.js';

/**
 * Options given to `team` before a subcommand's name belong to `team` and would be ignored by the subcommand:
 * refuse them, saying where they go (the error names the first).
 */
export function rejectParentOptions(command: Command): void {
  const parent = command.parent;
  if (!parent) return;
  const given = parent.options
    .filter((option) => parent.getOptionValueSource(option.attributeName()) === 'cli')
    .map((option) => option.long ?? option.flags);
  if (given.length === 0) return;
  const name = command.name();
  throw new WeftError(
    'BAD_INPUT',
    `options go after the subcommand: weft team ${name} ${given[0]} … (${given.join(', ')} came before "${name}")`,
    {
      location: { field: given[0]! },
    },
  );
}

/**
 * Registers `weft team [question]` with its subcommands `run`, `optimize`, `eval` and `replay`. A parent command with an
 * argument and subcommands needs positional options, or commander hands a subcommand's `--team` to the parent:
 * options therefore go after the subcommand's name (`weft team optimize --team pool.yaml`), and the root
 * program's own options (only --help and --version) before any command name.
 */
export function registerTeamCommands(program: Command, context: CommandContext): void {
  const { output, signal, setExit } = context;
  program.enablePositionalOptions();
  const common = (command: Command): Command =>
    addBudgetOptions(command)
      .option(
        '--model <spec>',
        'model for agents (and the ranker) that the team file gives none, e.g. openai:gpt-4o-mini, sim:accuracy=0.7',
      )
      .option(
        '--store <spec>',
        'run store: sqlite:<path> or postgres://… (default: $WEFT_STORE, the config, or SQLite in the home)',
      )
      .option('--home <dir>', 'Weft home (default: $WEFT_HOME or ./.weft)')
      .option(
        '--otel [url]',
        'export OpenTelemetry traces over OTLP/HTTP to this collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)',
      )
      .option('--otel-content', 'with --otel: record prompts, replies and tool arguments in spans')
      .option(
        '--stop-check <when>',
        "when consensus is checked: answer (after each answer, agents called one at a time, as the authors' code) or layer (after each whole layer, agents called at once); default: the team file's, else answer",
      )
      .option('--json', 'print one JSON document on stdout');
  const ask = (command: Command, sub: boolean): Command =>
    common(
      command
        .option('--team <file>', 'the team file (YAML or JSON)')
        .option('--max-steps <N>', "at most N layers (default: the team file's, else 4; 6 for code)")
        .option('--seed <S>', "seed of the peers' and the ranker's shuffles (default 0)")
        .option('--task-type <T>', 'the key saved importance scores are read under (default general)')
        .option('--no-optimized', 'run every agent of the team file, even when saved scores would pick the top ones'),
    ).action(async (question: string | undefined, flags: TeamFlags, command: Command) => {
      if (sub) rejectParentOptions(command);
      setExit(await (await import('./team-command.js')).teamCommand(question, flags, output, signal));
    });

  const team = ask(
    program
      .command('team')
      .description('ask a DyLAN agent team a question (subcommands: run, optimize, eval, replay)')
      .enablePositionalOptions()
      .argument('[question]', 'the question in words, or a file that holds it'),
    false,
  );
  ask(
    team
      .command('run')
      .description('ask the team a question (the same as `weft team <question>`)')
      .argument('<question>', 'the question in words, or a file that holds it'),
    true,
  );
  common(
    team
      .command('optimize')
      .description(
        'score a pool of agents on sample queries, keep the top k, and save the scores and k in the run store',
      )
      .option('--team <file>', 'the candidate pool: a team file')
      .option('--queries <file>', 'sample queries, JSONL {id, question, choices?, answer?}')
      .option('--k <N>', 'size of the optimised team, recorded in the run store: later runs take the top N')
      .option('--task-type <T>', 'the key the scores are saved under (default general)')
      .option('--seed <S>', 'seed of the shuffles (default 0)')
      .option('--concurrency <N>', 'queries at once (default 4)'),
  ).action(async (flags: TeamOptimizeFlags, command: Command) => {
    rejectParentOptions(command);
    setExit(await (await import('./team-optimize-command.js')).teamOptimizeCommand(flags, output, signal));
  });
  common(
    team
      .command('eval')
      .description('accuracy, calls per query and early-stop rate of a team on a dataset')
      .option('--team <file>', 'the team file')
      .option('--data <file>', 'the dataset, JSONL {id, question, choices?, answer}')
      .option('--concurrency <N>', 'items at once (default 4)')
      .option('--max-steps <N>', "at most N layers (default: the team file's, else 4; 6 for code)")
      .option('--seed <S>', 'seed of the shuffles (default 0)')
      .option('--task-type <T>', 'the key saved importance scores are read under (default general)')
      .option('--no-optimized', 'run every agent of the team file, even when saved scores would pick the top ones'),
  ).action(async (flags: TeamEvalFlags, command: Command) => {
    rejectParentOptions(command);
    setExit(await (await import('./team-eval-command.js')).teamEvalCommand(flags, output, signal));
  });
  team
    .command('replay')
    .description(
      "replay the DyLAN authors' recorded runs (real model replies) through the team engine and compare replies per query, answers and importance with their figures",
    )
    .argument(
      '<path>',
      "a recording (<subject>_<N>3.json, its .txt beside it), a folder of them, or the authors' exp/MMLU folder",
    )
    .option(
      '--reading <how>',
      "how answers are read from the replies: authors (their rule, default) or weft (Weft's own)",
    )
    .option(
      '--order <how>',
      "a layer's call order: recorded (consistent with the recording, default) or engine (Weft's own seeded order)",
    )
    .option('--stop-check <when>', 'when consensus is checked: answer (default) or layer')
    .option('--mismatches <N>', `differing queries listed per team in the text report (default 10)`)
    .option('--json', 'print one JSON document on stdout')
    .action(async (path: string, flags: TeamReplayFlags, command: Command) => {
      rejectParentOptions(command);
      setExit(await (await import('./team-replay-command.js')).teamReplayCommand(path, flags, output, signal));
    });
}
