/**
 * The `weft` command line. Thin: parse flags, call the library, print. Exit codes: 0 success, 1 a failed run,
 * 2 bad input (the message names the file, line and field).
 */
import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { formatError, isUserError, isWeftError, MAX_REPORTED_ISSUES, WeftError } from '../errors.js';
import { RUN_DEFAULTS } from '../run-defaults.js';
import { addBudgetOptions } from './budget-options.js';
import { tolerateClosedPipe } from './closed-pipe.js';
import { normalizeOtelFlag, startCliTelemetry, type StopCliTelemetry } from './otel.js';
import { createOutput, type Output, type Streams } from './output.js';
import { registerSimulateCommands } from './register-simulate-commands.js';
import { registerTeamCommands } from './register-team-commands.js';

/** Commander's accumulator for a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export async function main(
  argv: readonly string[],
  streams: Streams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  tolerateClosedPipe(streams.stdout);
  tolerateClosedPipe(streams.stderr);
  const json = argv.includes('--json');
  const output = createOutput(json, streams);
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    output.log('cancelling: finished work is kept (Ctrl-C again to quit at once)');
    controller.abort(new WeftError('ABORTED', 'cancelled by the user'));
  };
  // SIGTERM (what process managers and `kill` send) stops a command the same way: a run withdraws its queued jobs
  // and is marked cancelled, instead of dying with its jobs left for workers that nobody will hear from.
  const onTerminate = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(143);
    output.log('terminating: finished work is kept (send SIGTERM again to quit at once)');
    controller.abort(new WeftError('ABORTED', 'terminated (SIGTERM)'));
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  let exitCode = 0;
  // Only help shows the registered update policies; loading them (weft/core) for every command would slow
  // `--version` and the commands that do not plan.
  const strategies = wantsHelp(argv) ? (await import('../core.js')).updatePolicyNames() : undefined;
  const program = buildProgram(output, streams, controller.signal, (code) => (exitCode = code), strategies);
  // Tracing (--otel, or OTEL_EXPORTER_OTLP_ENDPOINT) starts once the command is known, and is flushed before the
  // command's exit code is returned: after a success, an error or a cancel alike.
  let stopTelemetry: StopCliTelemetry | undefined;
  program.hook('preAction', async (_program, command) => {
    stopTelemetry = await startCliTelemetry(commandPath(command), command.opts(), output);
  });
  try {
    await program.parseAsync(normalizeOtelFlag(argv), { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, output);
  } finally {
    await stopTelemetry?.();
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  }
}

/** A subcommand with its parents' names (`team eval`), the program's own left out. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Whether commander will print help: a bare `weft`, `help`, or -h/--help anywhere. */
function wantsHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}

/** From package.json, which sits two folders up from both src/cli and dist/cli. */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * Options live here, so `weft <command> --help` lists them all; each command's module (and what it needs: stores,
 * providers, the planner) loads only when that command runs, so `--version` and `--help` start fast.
 */
function buildProgram(
  output: Output,
  streams: Streams,
  signal: AbortSignal,
  setExit: (code: number) => void,
  strategies: readonly string[] | undefined,
): Command {
  const program = new Command('weft')
    .description('Plan a task as a graph of subtasks, run it with LLM agents in parallel, verify and repair.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (text) => streams.stdout.write(text), writeErr: (text) => streams.stderr.write(text) })
    .showSuggestionAfterError();
  const home = new Option('--home <dir>', 'Weft home (default: $WEFT_HOME or ./.weft)');
  const model = new Option(
    '--model <spec>',
    'model spec, e.g. openai:gpt-4o-mini, ollama:llama3.1, scripted:replies.json, sim:seed=7',
  );
  const jsonOption = new Option('--json', 'print one JSON document on stdout');
  const otel = new Option(
    '--otel [url]',
    'export OpenTelemetry traces over OTLP/HTTP to this collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)',
  );
  const otelContent = new Option('--otel-content', 'with --otel: record prompts, replies and tool arguments in spans');
  const store = new Option(
    '--store <spec>',
    'run store: sqlite:<path> or postgres://… (default: $WEFT_STORE, the config, or SQLite in the home)',
  );

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

  program
    .command('worker')
    .description(
      'run subtasks that `weft run --workers` and cases that `weft exec --inputs --workers` put on a Redis queue, until SIGINT or SIGTERM',
    )
    .option('--redis <url>', 'the Redis the coordinator uses, e.g. redis://127.0.0.1:6379')
    .option('--concurrency <N>', 'jobs at once (default 1)')
    .option('--queue <name>', 'queue name (default weft-subtasks)')
    .option('--lock-ms <ms>', "job lock duration; a killed worker's job is retried after it (default 30000)")
    .option('--stalled-ms <ms>', 'how often to look for stalled jobs (default 30000)')
    .option('--tools <file>', "the run's tools file, for subtasks whose roles call tools")
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) =>
      setExit(await (await import('./worker-command.js')).workerCommand(flags, output, streams, signal)),
    );

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

  program
    .command('mcp')
    .description(
      'serve Weft to an MCP client over stdio: plan, run, status, show, cancel, runs, eval, exec; runs as weft://runs/{id}',
    )
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(store)
    .addOption(home)
    .action(async (flags) => setExit(await (await import('./mcp-command.js')).mcpCommand(flags, output, signal)));

  program
    .command('serve')
    .description(
      'a live web dashboard of the runs, sessions, batches, traces and eval reports (read-only), on 127.0.0.1 with a token',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4477')
    .option('--host <host>', 'address to listen on; anything but loopback is reachable by others (default 127.0.0.1)')
    .option(
      '--reports <path>',
      'an eval report (--json of weft eval, bench, team/dialog/distill eval) or a folder of them to show (repeatable)',
      collect,
      [],
    )
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./serve-command.js')).serveCommand(flags, output, signal)));

  program
    .command('runs')
    .description('list recorded runs, oldest first')
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./runs-command.js')).runsCommand(flags, output)));

  program
    .command('prune')
    .description(
      'remove runs older than an age, with their events, plans, unshared outputs and folders (never a live run)',
    )
    .option('--older-than <age>', 'age like 30d, 12h, 90m (units s, m, h, d, w)')
    .option('--dry-run', 'list what would be removed, and remove nothing')
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./prune-command.js')).pruneCommand(flags, output)));

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
  bench
    .command('worfbench')
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

  const tools = program.command('tools').description('the tools a tools file provides (http, module, mcp)');
  const toolsFile = new Option(
    '--tools <file>',
    'the tools file (YAML or JSON; default ./tools.yaml, ./tools.yml or ./tools.json)',
  );
  tools
    .command('list')
    .description('list every tool with its source, description and arguments (--json: with the input schema)')
    .addOption(toolsFile)
    .addOption(jsonOption)
    .action(async (flags) =>
      setExit(await (await import('./tools-command.js')).toolsListCommand(flags, output, signal)),
    );
  tools
    .command('call')
    .description('call one tool by hand, as an agent would (validated, with its timeout and retries)')
    .argument('<name>', 'the tool')
    .option('--args <json>', 'the arguments, a JSON object (default {})')
    .option('--timeout-ms <ms>', "per attempt (default: the tool's, else 30000)")
    .addOption(toolsFile)
    .addOption(jsonOption)
    .action(async (name: string, flags) =>
      setExit(await (await import('./tools-command.js')).toolsCallCommand(name, flags, output, signal)),
    );

  const pdl = program.command('pdl').description('check and draw procedures (PDL files, *.pdl.yaml; docs/pdl.md)');
  pdl
    .command('check')
    .description('every problem of a PDL file, located (exit 2 on errors, 0 with only warnings)')
    .argument('<file>', 'the PDL file')
    .option('--tools <file>', "a tools file whose tools the APIs bind to by name (besides the file's own tools:)")
    .addOption(jsonOption)
    .action(async (file: string, flags) =>
      setExit(await (await import('./pdl-command.js')).pdlCheckCommand(file, flags, output, signal)),
    );
  pdl
    .command('show')
    .description('the API dependency graph: APIs in dependency order with what they need, take and return')
    .argument('<file>', 'the PDL file')
    .option('--mermaid', 'as a Mermaid flowchart')
    .addOption(jsonOption)
    .action(async (file: string, flags) =>
      setExit(await (await import('./pdl-command.js')).pdlShowCommand(file, flags, output)),
    );
  addBudgetOptions(program.command('chat'))
    .description('talk to a procedure (a PDL file): interactive, or one message a line from stdin')
    .argument('[file]', 'the procedure, FILE.pdl.yaml (optional with --session)')
    .option('--session <id>', 'take up a saved session again (after Ctrl-C or a crash)')
    .option('--tools <file>', "a tools file binding the procedure's APIs by name (besides its own tools: section)")
    .option(
      '--simulate-apis',
      'a model answers every API that has no tool, or only a declaration (a FlowAgent tools spec); its calls are marked simulated',
    )
    .option('--api-model <spec>', "with --simulate-apis: the model that answers the APIs (default: the bot's)")
    .option('--verbose', 'show thoughts, API calls and controller verdicts (on stderr)')
    .option('--no-post-controllers', 'controllers only guide the bot; none refuses an action (ablation)')
    .option('--no-controllers', 'no controllers at all (ablation)')
    .option('--max-actions <N>', 'decisions of the bot per user turn (default 5)')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(model)
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (file: string | undefined, flags) =>
      setExit(
        await (await import('./chat-command.js')).chatCommand(
          file,
          flags,
          output,
          signal,
          streams.stdin ?? process.stdin,
        ),
      ),
    );
  program
    .command('sessions')
    .description('the conversations with procedures in the store, oldest first')
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./sessions-command.js')).sessionsCommand(flags, output)));
  program
    .command('show-session')
    .description('one conversation as a transcript, with API calls and controller verdicts')
    .argument('<sessionId>')
    .option('--verbose', 'also thoughts, guidance and accepted verdicts')
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (sessionId: string, flags) =>
      setExit(await (await import('./sessions-command.js')).showSessionCommand(sessionId, flags, output)),
    );

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
    .option('--concurrency <n>', 'batch: cases at once (default 8; 500 with --workers)')
    .option('--out <file>', 'batch: write every result there as it finishes (JSONL)')
    .option('--workers <redis-url>', 'batch: run the cases on `weft worker`s through BullMQ on this Redis')
    .option('--resume <batch>', 'continue a stopped batch: no case with a result runs again')
    .option('--rerun-interrupted', 'with --resume: run again the cases that were interrupted while running')
    .option(
      '--max-visits <n>',
      'node visits a case may make before it is stopped (default 10000; loops count each pass)',
    )
    .option('--home <dir>', 'Weft home (batches are kept in <home>/batches)')
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

  program
    .command('solve')
    .description('solve one instance of a task with business tools and save its trace (FlowMind execute stage)')
    .argument('<task>', 'the task in words, or a file that holds it')
    .option('--tools <file>', 'the tools file: the only tools the agent has')
    .option('--input <json>', "the instance's inputs, a JSON object")
    .option('--mode <mode>', 'react (default) or plan-execute')
    .option('--task-key <key>', 'groups the traces of one task (weft traces --task)')
    .option('--expected <json>', 'the answer it should give: the trace succeeds only when it does')
    .option('--max-steps <N>', 'model calls the agent may make (default 20)')
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
  const distillCommand = program
    .command('distill')
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
    .option('--max-steps <n>', 'model calls before giving up without finish (default 40)')
    .option('--model <spec>', 'the summarizer (sim:reference=FILE emits that workflow)')
    .addOption(otel)
    .addOption(otelContent)
    .addOption(home)
    .addOption(store)
    .addOption(jsonOption)
    .action(async (traceIds: string[], flags) =>
      setExit(await (await import('./distill-command.js')).distillCommand(traceIds, flags, output, signal)),
    );
  distillCommand
    .command('eval')
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

  registerTeamCommands(program, { output, signal, setExit });
  registerSimulateCommands(program, { output, signal, setExit });

  return program;
}

function reportError(error: unknown, output: Output): number {
  if (error instanceof CommanderError) {
    // Asked-for help and version are successes (exit code 0); help shown for a missing command and every other
    // commander error are usage errors.
    if (error.exitCode === 0) return 0;
    if (output.json) output.document({ error: { code: 'BAD_INPUT', message: error.message.replace(/^error: /, '') } });
    return 2;
  }
  const message = formatError(error);
  output.log(`weft: ${message}`);
  if (output.json) {
    output.document({
      error: {
        code: isWeftError(error) ? error.code : 'INTERNAL',
        message: error instanceof Error ? error.message : String(error),
        ...(isWeftError(error) && error.location ? { location: error.location } : {}),
        ...(isWeftError(error) && error.issues.length ? { issues: error.issues.slice(0, MAX_REPORTED_ISSUES) } : {}),
        ...(isWeftError(error) && error.issues.length > MAX_REPORTED_ISSUES
          ? { omittedIssues: error.issues.length - MAX_REPORTED_ISSUES }
          : {}),
      },
    });
  }
  if (isUserError(error)) return 2;
  if (!isWeftError(error)) output.log(error instanceof Error && error.stack ? error.stack : '');
  return 1;
}

// Run directly (tsx src/cli/main.ts …) as well as through bin/weft.js.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
