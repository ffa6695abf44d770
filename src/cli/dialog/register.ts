/**
 * The dialog family (FlowAgent): `weft pdl`, `chat`, `sessions` and `show-session` (conversational procedures), and
 * their evaluation, `simulate` and `dialog eval` (docs/dialog-evaluation.md). Two functions, because `weft --help`
 * lists commands in the order they are registered and the evaluation comes later there. Light, like every
 * registration: a command's module loads only when it runs, so `weft --help` stays fast.
 */
import type { Command } from 'commander';
import { addBudgetOptions } from '../budget-options.js';
import type { CommandContext } from '../command-context.js';
import { OLDEST_FIRST_HELP } from '../list-order.js';
import type { DialogEvalFlags } from './dialog-eval-command.js';
import type { SimulateFlags } from './simulate-command.js';

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
    .description('the conversations with procedures in the store, newest first')
    .option('--oldest-first', OLDEST_FIRST_HELP)
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

export function registerSimulateCommands(program: Command, context: CommandContext): void {
  const { output, signal, setExit } = context;
  const modelHelp = 'e.g. openai:gpt-4o-mini, ollama:llama3.1, sim:seed=7';
  addBudgetOptions(program.command('simulate'))
    .description('simulated users talk to a procedure; a judge scores each session (in-workflow vs out-of-workflow)')
    .argument('<file>', 'the procedure (*.pdl.yaml)')
    .option(
      '--profiles <file>',
      "user profiles, JSON Lines or a JSON array: {id, persona, details, needs, style, pattern, required_apis, goals}, or the FlowAgent authors' {persona, user_details, user_needs, dialogue_style, interactive_pattern, required_apis?}",
    )
    .option('--model <spec>', `the bot's model, ${modelHelp}`)
    .option('--user-model <spec>', 'the model that plays the users')
    .option('--judge <spec>', 'the model that scores the sessions')
    .option('--tools <file>', "a tools file for the procedure's APIs (besides the file's own tools: section)")
    .option(
      '--simulate-apis',
      'a model answers every API that has no tool, or only a declaration (a FlowAgent tools spec); its calls are marked simulated',
    )
    .option('--api-model <spec>', "with --simulate-apis: the model that answers the APIs (default: the bot's)")
    .option('--oow <P>', 'probability that a user turn is an out-of-workflow move (default 0)')
    .option(
      '--oow-taxonomy <file>',
      'the kinds of out-of-workflow move, a YAML list of {name, description, types: [{name, description}]} as the FlowAgent authors ship it (default: the built-in 3 categories × 17 subtypes)',
    )
    .option(
      '--oow-assignment <how>',
      "per-turn (default: a category and subtype drawn each turn after the first) or per-profile (the FlowAgent authors' code: one category per profile, any turn)",
    )
    .option('--sessions <N>', 'sessions to run; profiles are cycled (default: one per profile)')
    .option('--concurrency <N>', 'sessions at once (default 4)')
    .option('--max-turns <N>', 'user turns per session at most (default 20)')
    .option('--seed <S>', 'seed of the out-of-workflow draws (default 1)')
    .option('--no-post-controllers', 'controllers guide the bot but refuse nothing (ablation)')
    .option('--no-controllers', 'no controllers at all (ablation)')
    .option('--keep-sessions', 'keep every session in the store, to read with `weft show-session ID`')
    .option(
      '--store <spec>',
      'with --keep-sessions: sqlite:<path> or postgres://… (default: $WEFT_STORE, the config, or SQLite in the home)',
    )
    .option('--home <dir>', 'Weft home (default: $WEFT_HOME or ./.weft)')
    .option(
      '--otel [url]',
      'export OpenTelemetry traces over OTLP/HTTP to this collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)',
    )
    .option('--otel-content', 'with --otel: record prompts, replies and tool arguments in spans')
    .option('--json', 'print one JSON document on stdout')
    .action(async (file: string, flags: SimulateFlags) =>
      setExit(await (await import('./simulate-command.js')).simulateCommand(file, flags, output, signal)),
    );

  const dialog = program.command('dialog').description('conversational procedures: evaluation');
  addBudgetOptions(dialog.command('eval'))
    .description(
      "turn-level evaluation: the bot predicts each reference move from the reference's prefix; a judge compares",
    )
    .argument('<file>', 'the procedure (*.pdl.yaml)')
    .option('--references <file>', 'reference sessions, JSONL {id, profile?, messages: [...]}')
    .option('--model <spec>', `the bot's model, ${modelHelp}`)
    .option('--judge <spec>', 'the model that compares each move with the reference')
    .option('--tools <file>', "a tools file (only the tools' declarations are used; the PDL declares missing ones)")
    .option(
      '--simulate-apis',
      'reference API calls recorded without an answer get one from a model (nothing is ever executed)',
    )
    .option('--api-model <spec>', "with --simulate-apis: the model that answers the APIs (default: the bot's)")
    .option('--concurrency <N>', 'moves at once (default 4)')
    .option('--no-controllers', 'no pre-decision guidance from the controllers')
    .option('--home <dir>', 'Weft home (default: $WEFT_HOME or ./.weft)')
    .option(
      '--otel [url]',
      'export OpenTelemetry traces over OTLP/HTTP to this collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)',
    )
    .option('--otel-content', 'with --otel: record prompts, replies and tool arguments in spans')
    .option('--json', 'print one JSON document on stdout')
    .action(async (file: string, flags: DialogEvalFlags) =>
      setExit(await (await import('./dialog-eval-command.js')).dialogEvalCommand(file, flags, output, signal)),
    );
}
