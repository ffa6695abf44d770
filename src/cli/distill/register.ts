/**
 * `weft workflow`, `exec`, `solve`, `traces` and `distill`: solved tasks distilled into executable workflows that run
 * without a model (FlowMind). Light, like every registration: a command's module loads only when it runs, so `weft
 * --help` stays fast.
 */
import type { Command } from 'commander';
import { WeftError } from '../../errors.js';
import { addBudgetOptions } from '../budget-options.js';
import { collect, type CommandContext } from '../command-context.js';
import { OLDEST_FIRST_HELP } from '../list-order.js';

export function registerDistillCommands(program: Command, context: CommandContext): void {
  const { output, streams, signal, setExit } = context;
  const { home, model, otel, otelContent, store, json: jsonOption } = context.options;
  const workflowCommand = program
    .command('workflow')
    .description('executable workflows (distilled, no model at run time; docs/workflows.md)');
  workflowCommand
    .command('check')
    .description('every problem of a workflow file, located (exit 2 on errors, 0 with only warnings)')
    .argument('<file>', 'the workflow (JSON or YAML)')
    .option('--tools <file>', 'a tools file: the tools the workflow calls must exist there')
    .addOption(jsonOption)
    .action(async (file: string, flags) =>
      setExit(await (await import('./workflow-command.js')).workflowCheckCommand(file, flags, output, signal)),
    );
  workflowCommand
    .command('show')
    .description('an executable workflow as a listing, or drawn (Mermaid, Graphviz DOT) or as WorfBench text')
    .argument('<file>', 'the workflow (JSON or YAML)')
    .option('--mermaid', 'a Mermaid flowchart (conditions as diamonds with dashed, labelled branches)')
    .option('--dot', 'a Graphviz digraph (condition branches dashed and labelled)')
    .option('--worfbench', 'WorfBench node/edge text, as `weft eval` scores it')
    .addOption(jsonOption)
    .action(async (file: string, flags) =>
      setExit(await (await import('./workflow-command.js')).workflowShowCommand(file, flags, output)),
    );
  program
    .command('exec')
    .description('run an executable workflow on one input, or on a batch of cases (--inputs), with no model')
    .argument('[file]', 'the workflow (JSON or YAML)')
    .option('--tools <file>', 'the tools file of the tools it calls (not needed when it calls none)')
    .option('--input <json>', 'the input, a JSON object (default {})')
    .option('--inputs <file>', 'a batch: a JSONL file, one {"id", "input", "expected"?} per line')
    .option('--concurrency <n>', 'batch: cases in flight (default 8 per --jobs, at least 16; 500 with --workers)')
    .option('--out <file>', 'batch: write every result there as it finishes (JSONL)')
    .option('--workers <redis-url>', 'batch: run the cases on `weft worker`s through BullMQ on this Redis')
    .option('--resume <batch>', 'continue a stopped batch: no case with a result runs again')
    .option('--rerun-interrupted', 'with --resume: run again the cases that were interrupted while running')
    .option(
      '--max-visits <n>',
      'node visits a case may make before it is stopped (default 10000; loops count each pass)',
    )
    .option(
      '--time-limit <ms>',
      'milliseconds a case may compute (its expressions; time waiting for tools not counted) before its worker thread is stopped (default 2000)',
    )
    .option('--worker-memory <mb>', 'heap limit in MB of the worker thread a case runs in (default 256)')
    .option('--jobs <n>', 'worker threads cases run on at once (default: one a core; --jobs 1: one thread)')
    .option('--home <dir>', 'Weft home (its weft.db keeps the batches unless --store names another store)')
    .addOption(store)
    .addOption(jsonOption)
    .action(async (file: string | undefined, flags) => {
      if (flags.inputs !== undefined || flags.resume !== undefined) {
        if (flags.input !== undefined)
          throw new WeftError('BAD_INPUT', 'use --input for one case or --inputs for a batch, not both', {
            location: { field: '--input' },
          });
        const batch = await import('./exec-batch-command.js');
        setExit(await batch.execBatchCommand(file, flags, output, streams, signal));
        return;
      }
      for (const flag of ['concurrency', 'out', 'workers', 'rerunInterrupted'] as const)
        if (flags[flag] !== undefined)
          throw new WeftError(
            'BAD_INPUT',
            `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for a batch (--inputs)`,
            {
              location: { field: `--${flag}` },
            },
          );
      if (file === undefined)
        throw new WeftError('BAD_INPUT', 'weft exec needs a workflow FILE', { location: { field: 'FILE' } });
      setExit(await (await import('./workflow-command.js')).execCommand(file, flags, output, signal));
    });

  addBudgetOptions(program.command('solve'))
    .description('solve one instance of a task with business tools and save its trace (FlowMind execute stage)')
    .argument('<task>', 'the task in words, or a file that holds it')
    .option('--tools <file>', 'the tools file: the only tools the agent has')
    .option('--input <json>', "the instance's inputs, a JSON object")
    .option('--mode <mode>', 'react (default) or plan-execute')
    .option('--task-key <key>', 'groups the traces of one task (weft traces --task)')
    .option('--expected <json>', 'the answer it should give: the trace succeeds only when it does')
    .option('--max-steps <N>', 'model calls this solve may make; past them the trace fails (default 20)')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (task: string, flags) =>
      setExit(await (await import('./solve-command.js')).solveCommand(task, flags, output, signal)),
    );
  const traces = program
    .command('traces')
    .description('the execution traces in the store, newest first (weft solve, tool-using runs)')
    .option('--oldest-first', OLDEST_FIRST_HELP)
    .option('--task <key>', 'only the traces of this task key')
    .option('--success', 'only successful traces')
    .option('--limit <N>', 'at most this many (default: the newest 100)')
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./solve-command.js')).tracesCommand(flags, output)));
  traces
    .command('show')
    .description('one trace: its plan, tool calls with arguments and results, and answer')
    .argument('<traceId>')
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (traceId: string, flags) =>
      // Options written after the id are parsed by `traces` itself (commander gives the parent its options first).
      setExit(
        await (await import('./solve-command.js')).showTraceCommand(traceId, { ...traces.opts(), ...flags }, output),
      ),
    );
  // `weft distill TRACE_ID…` summarizes traces; `weft distill eval` runs a suite through every stage.
  const distillCommand = addBudgetOptions(program.command('distill'))
    // `weft distill eval --model M`: the options after `eval` are eval's own, not the parent's of the same name.
    .enablePositionalOptions()
    .description('summarize traces into an executable workflow with graph tools only (docs/design.md: Distillation)')
    .argument('[traceIds...]', 'the traces to summarize (see `weft traces`)')
    .option('--tools <file>', 'the business tools (described to the model, not callable)')
    .option('--out <file>', 'where to write the workflow (an unfinished one goes to <out>.partial.json, exit 1)')
    .option('--strategy <strategy>', 'plan-execute (plan the graph first, the default) or react')
    .option('--selection <selection>', 'random_success (default), all_success, all or first')
    .option('--seed <n>', 'the seed of random_success (default 1)')
    .option('--traces <file>', 'read the traces from a JSON/JSONL file (weft traces show --json) instead of the store')
    .option('--max-steps <n>', 'model calls before the summary gives up unfinished (default 40)')
    .option('--model <spec>', 'the summarizer (sim:reference=FILE emits that workflow)')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (traceIds: string[], flags) =>
      setExit(await (await import('./distill-command.js')).distillCommand(traceIds, flags, output, signal)),
    );
  addBudgetOptions(distillCommand.command('eval'))
    .description("execute, distil and test each task of a suite; a table per variant (the FlowMind paper's metrics)")
    .requiredOption('--suite <dir>', 'a folder of <task>/task.yaml (examples/distill-suite)')
    .option('--model <spec>', 'the model of both stages (sim runs offline)')
    .option('--variant <name>', 'es-pe (default), es-react, react, pe or all')
    .option('--task <name>', 'only this task (repeatable)', collect, [])
    .option('--selection <rule>', 'trace selection: random_success (default), all_success, all or first')
    .option('--rollouts <n>', 'traces the execute stage makes per train input (default 1, at most 100)')
    .option('--max-visits <n>', 'node visits a workflow may make per test case (default 10000)')
    .option('--out <dir>', "a new or empty folder: keep each task run's workflow, traces and case results there")
    .option('--concurrency <n>', 'tasks evaluated at once (default 4)')
    .option('--home <dir>', 'Weft home (default ./.weft)')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(jsonOption)
    .action(async (flags) =>
      setExit(await (await import('./distill-eval-command.js')).distillEvalCommand(flags, output, signal)),
    );
}
