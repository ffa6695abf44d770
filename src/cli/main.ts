/**
 * The `weft` command line. Thin: parse flags, call the library, print. Exit codes: 0 success, 1 a failed run,
 * 2 bad input (the message names the file, line and field).
 */
import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { formatError, isUserError, isWeftError, MAX_REPORTED_ISSUES, WeftError } from '../errors.js';
import { tolerateClosedPipe } from './closed-pipe.js';
import { applyHelpGroups, commandPathOf } from './help-groups.js';
import { registerExamplesCommand } from './ops/examples-register.js';
import type { CommandContext } from './command-context.js';
import { normalizeOtelFlag, startCliTelemetry, type StopCliTelemetry } from './otel.js';
import { createOutput, type Output, type Streams } from './output.js';
import { registerDialogCommands, registerSimulateCommands } from './dialog/register.js';
import { registerDistillCommands } from './distill/register.js';
import { registerEvalCommands } from './eval/register.js';
import { registerOpsCommands, registerToolsCommands, registerWorkerCommand } from './ops/register.js';
import { registerRunCommands, registerShowCommand } from './run/register.js';
import { registerTeamCommands } from './team/register.js';

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
  // The command that runs (set before its action): `weft serve` has no work to keep, so it says what it does.
  let running = '';
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    output.log(
      running === 'serve'
        ? 'weft serve: stopping the dashboard'
        : 'cancelling: finished work is kept (Ctrl-C again to quit at once)',
    );
    controller.abort(new WeftError('ABORTED', 'cancelled by the user'));
  };
  // SIGTERM (what process managers and `kill` send) stops a command the same way: a run withdraws its queued jobs
  // and is marked cancelled, instead of dying with its jobs left for workers that nobody will hear from.
  const onTerminate = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(143);
    output.log(
      running === 'serve'
        ? 'weft serve: stopping the dashboard (SIGTERM)'
        : 'terminating: finished work is kept (send SIGTERM again to quit at once)',
    );
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
    running = commandPathOf(command);
    stopTelemetry = await startCliTelemetry(commandPathOf(command), command.opts(), output);
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

/** Whether commander will print help: a bare `weft`, `help`, or -h/--help anywhere. */
function wantsHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
}

/** From package.json, which sits two folders up from both src/cli and dist/cli. */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * The program, the options many commands share, and the register functions of each command family (its folder's
 * register.ts).
 * Every option is declared when the program is built, so `weft <command> --help` lists them all; each command's
 * module (and what it needs: stores, providers, the planner) loads only when that command runs, so `--version` and
 * `--help` start fast. The registration order is the order of `weft --help`'s command list.
 */
function buildProgram(
  output: Output,
  streams: Streams,
  signal: AbortSignal,
  setExit: (code: number) => void,
  strategies: readonly string[] | undefined,
): Command {
  const program = new Command('weft')
    .description(
      'Agentic workflows: plan a task as a graph of subtasks and run it with LLM agents (Flow); score workflows ' +
        '(WorfBench); agent teams (DyLAN); conversational procedures (FlowAgent); model-free workflows distilled ' +
        'from solved tasks (FlowMind). `weft examples` lists examples that run without a key.',
    )
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

  const context: CommandContext = {
    output,
    streams,
    signal,
    setExit,
    options: { home, model, json: jsonOption, otel, otelContent, store },
  };
  registerRunCommands(program, context, strategies);
  registerWorkerCommand(program, context);
  registerShowCommand(program, context);
  registerOpsCommands(program, context);
  registerEvalCommands(program, context);
  registerToolsCommands(program, context);
  registerDialogCommands(program, context);
  registerDistillCommands(program, context);
  registerTeamCommands(program, context);
  registerSimulateCommands(program, context);
  registerExamplesCommand(program, context);
  applyHelpGroups(program);

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
