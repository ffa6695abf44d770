/**
 * `weft eval` and `weft bench worfbench`: scoring workflows with WorfEval, against WorfBench gold. Light, like every
 * registration: a command's module loads only when it runs, so `weft --help` stays fast.
 */
import type { Command } from 'commander';
import { addBudgetOptions } from '../budget-options.js';
import type { CommandContext } from '../command-context.js';

export function registerEvalCommands(program: Command, context: CommandContext): void {
  const { output, streams, signal, setExit } = context;
  const { home, model, otel, otelContent, json: jsonOption } = context.options;
  program
    .command('eval')
    .description(
      'score predicted workflows against WorfBench gold, or an executable workflow against a reference one, with WorfEval (f1_chain, f1_graph)',
    )
    .argument(
      '<predictions>',
      'a JSONL file, one {"id": …, "output": "<workflow text>"} per line; or an executable workflow (.json/.yaml)',
    )
    .option(
      '--gold <path>',
      'the gold records: a WorfBench .json/.jsonl file or a folder of them; or the reference executable workflow',
    )
    .option(
      '--similarity <spec>',
      'lexical (default, offline), openai-compatible:<url>#<model>, openai:<model>, ollama:<model>, local:<path.gguf>',
    )
    .option('--beta <β>', 'node-match similarity threshold in (0, 1] (default 0.6)')
    .option('--max-orders <N>', 'gold topological orders tried for f1_chain (default 20)')
    .option('--mcis-time-limit <ms>', 'time limit of the exact common-subgraph search per sample (default 2000)')
    .option('--concurrency <N>', 'samples scored at once (default 16)')
    .addOption(home)
    .addOption(jsonOption)
    .action(async (predictions: string, flags) =>
      setExit(await (await import('./eval-command.js')).evalCommand(predictions, flags, output, signal)),
    );

  const bench = program.command('bench').description('benchmarks that call a model');
  addBudgetOptions(bench.command('worfbench'))
    .description('generate a workflow for each WorfBench gold record and score them with WorfEval (resumable)')
    .option('--data <path>', 'the gold records: a WorfBench .json file or a folder of them')
    .option('--planner <name>', 'single (one two-shot call per record, default) or weft (the K-candidate planner)')
    .option('--candidates <K>', 'candidate plans per record with --planner weft (default 3)')
    .option('--limit <N>', 'only the first N records, in file order')
    .option('--concurrency <N>', 'records in flight at once (default 4)')
    .option(
      '--out <dir>',
      'where predictions.jsonl and scores.json go (default <home>/bench/worfbench/<model>-<planner>)',
    )
    .option(
      '--similarity <spec>',
      'lexical (default, offline), openai-compatible:<url>#<model>, openai:<model>, ollama:<model>, local:<path.gguf>',
    )
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) =>
      setExit(await (await import('./bench-command.js')).benchWorfbenchCommand(flags, output, streams, signal)),
    );
}
