/**
 * The operations family: `weft worker` (runs queued subtasks and cases), `mcp` (Weft served to an MCP client over
 * stdio; the server itself is mcp-server.ts), `serve`, `runs` and `prune` (showing and tidying what the run store
 * holds) and `tools` (what a tools file provides). Three functions, because `weft --help` lists commands in
 * registration order and these sit between other families' commands there. Light, like every registration: a
 * command's module loads only when it runs, so `weft --help` stays fast.
 */
import { type Command, Option } from 'commander';
import { collect, type CommandContext } from '../command-context.js';
import { OLDEST_FIRST_HELP } from '../list-order.js';

export function registerWorkerCommand(program: Command, context: CommandContext): void {
  const { output, streams, signal, setExit } = context;
  const { home, model, otel, otelContent, json: jsonOption } = context.options;
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
}

export function registerOpsCommands(program: Command, context: CommandContext): void {
  const { output, signal, setExit } = context;
  const { home, model, otel, otelContent, store, json: jsonOption } = context.options;
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
      '--allowed-host <name>',
      'a host name the dashboard also answers to, e.g. a proxy in front of it (repeatable); other names get 421',
      collect,
      [],
    )
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
    .description('list recorded runs, newest first')
    .option('--oldest-first', OLDEST_FIRST_HELP)
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./runs-command.js')).runsCommand(flags, output)));

  program
    .command('prune')
    .description(
      'remove runs and exec batches older than an age, with their events, plans, unshared outputs and folders (never a live one)',
    )
    .option('--older-than <age>', 'age like 30d, 12h, 90m (units s, m, h, d, w)')
    .option('--dry-run', 'list what would be removed, and remove nothing')
    .addOption(store)
    .addOption(home)
    .addOption(jsonOption)
    .action(async (flags) => setExit(await (await import('./prune-command.js')).pruneCommand(flags, output)));
}

export function registerToolsCommands(program: Command, context: CommandContext): void {
  const { output, signal, setExit } = context;
  const { json: jsonOption } = context.options;
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
}
