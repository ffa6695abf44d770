/**
 * `weft mcp`: Weft served to an MCP client over stdio (the server itself is mcp-server.ts). Light, like every
 * registration: a command's module loads only when it runs, so `weft --help` stays fast.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

export function registerMcpCommand(program: Command, context: CommandContext): void {
  const { output, signal, setExit } = context;
  const { home, model, otel, otelContent, store } = context.options;
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
}
