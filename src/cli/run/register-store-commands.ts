/**
 * `weft serve`, `runs` and `prune`: reading and tidying what the run store holds. Light, like every registration: a
 * command's module loads only when it runs, so `weft --help` stays fast.
 */
import type { Command } from 'commander';
import { collect, type CommandContext } from '../command-context.js';

export function registerStoreCommands(program: Command, context: CommandContext): void {
  const { output, signal, setExit } = context;
  const { home, store, json: jsonOption } = context.options;
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
}
