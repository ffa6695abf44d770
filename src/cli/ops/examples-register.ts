/**
 * `weft examples` and `weft examples copy NAME DIR` (operations): the shipped examples, listed or copied to edit.
 * Light, like every registration: the command's module loads only when it runs.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

export function registerExamplesCommand(program: Command, context: CommandContext): void {
  const { output, setExit } = context;
  const { json: jsonOption } = context.options;
  const examples = program
    .command('examples')
    .description('the examples this package ships: what each shows and the command that runs it')
    .addOption(jsonOption)
    .action(async (flags) => setExit((await import('./examples-command.js')).examplesCommand(flags, output)));
  examples
    .command('copy')
    .description('copy one example into DIR/examples/ to edit, so its command runs from DIR as listed')
    .argument('<name>', 'the example, as `weft examples` lists it')
    .argument('<dir>', 'an empty or new folder')
    .option('--force', 'copy into a folder that is not empty (files of the same name are overwritten)')
    .addOption(jsonOption)
    .action(async (name: string, dir: string, flags) =>
      setExit((await import('./examples-command.js')).examplesCopyCommand(name, dir, flags, output)),
    );
}
