import type { Argument, Command, Option } from 'commander';

/**
 * What a shell should offer for an option's value or a positional argument, beyond commander's own
 * `choices`: read by the completion script generator (src/cli/completion/).
 */
export type CompletionHint =
  | 'files'
  /** The SKUs. */
  | 'skus'
  /** A model name a route may be set for: the SKUs, or a pattern such as `claude-*`. */
  | 'route-models'
  /** Configured backend names (asked of `svc-router backends list --json` as the user types). */
  | 'backends'
  /** `BACKEND[:UPSTREAM_MODEL]`: configured backend names and `offline`. */
  | 'targets'
  | 'config-keys'
  /** The value for the config key given as the argument before it. */
  | 'config-value'
  | { words: readonly string[] };

const hints = new WeakMap<Option | Argument, CompletionHint>();

/** Marks an option or argument with what its shell completion offers. */
export function completeWith<T extends Option | Argument>(item: T, hint: CompletionHint): T {
  hints.set(item, hint);
  return item;
}

/** Marks a command's positional arguments, in order. */
export function completeArguments(command: Command, ...argumentHints: (CompletionHint | undefined)[]): Command {
  argumentHints.forEach((hint, index) => {
    const argument = command.registeredArguments[index];
    if (argument && hint) hints.set(argument, hint);
  });
  return command;
}

/** The hint for an option or argument: its own, else its commander choices. */
export function completionHint(item: Option | Argument): CompletionHint | undefined {
  return hints.get(item) ?? (item.argChoices ? { words: item.argChoices } : undefined);
}

/** The shells `svc-router completion` prints a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
