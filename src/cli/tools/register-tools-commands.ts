/**
 * `weft tools list` and `weft tools call`: what a tools file provides, and calling one tool by hand. Light, like every
 * registration: a command's module loads only when it runs, so `weft --help` stays fast.
 */
import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context.js';

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
