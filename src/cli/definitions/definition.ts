import type { Command } from 'commander';

/**
 * Adds one top-level command, with its subcommands, to the program. A definition file imports
 * commander and small tables only: the module that runs the command is imported by its action,
 * when it runs, so `--help` and a command's start load nothing of the others.
 */
export type CommandDefinition = (program: Command) => void;
