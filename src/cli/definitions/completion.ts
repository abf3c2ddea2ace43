import { completeArguments, SHELLS } from '../completion-hints.js';
import type { CommandDefinition } from './definition.js';

export const completion: CommandDefinition = (program) => {
  completeArguments(program.command('completion <shell>'), { words: SHELLS })
    .description(`print a completion script for ${SHELLS.slice(0, -1).join(', ')} or ${SHELLS.at(-1)}`)
    .action(async (shell) => (await import('../commands/completion.js')).runCompletion(shell));
};
