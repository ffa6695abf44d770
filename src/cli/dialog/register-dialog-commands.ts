/**
 * `weft pdl`, `chat`, `sessions` and `show-session`: conversational procedures (FlowAgent). Their evaluation,
 * `simulate` and `dialog eval`, is registered by register-simulate-commands.ts. Light, like every registration: a
 * command's module loads only when it runs, so `weft --help` stays fast.
 */
import type { Command } from 'commander';
import { addBudgetOptions } from '../budget-options.js';
import type { CommandContext } from '../command-context.js';

export function registerDialogCommands(program: Command, context: CommandContext): void {
  const { output, streams, signal, setExit } = context;
  const { home, model, otel, otelContent, store, json: jsonOption } = context.options;
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
}
