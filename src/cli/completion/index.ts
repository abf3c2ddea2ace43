import type { Command } from 'commander';
import type { Shell } from '../completion-hints.js';
import { renderBash } from './bash.js';
import type { CompletionData } from './command-tree.js';
import { renderFish } from './fish.js';
import { renderZsh } from './zsh.js';

export type { CompletionData } from './command-tree.js';

/**
 * The completion script for a shell, generated from the commander tree (commands, options,
 * choices and the hints in src/cli/completion-hints.ts). `npm run docs` writes them to completions/.
 */
export const renderCompletion = (shell: Shell, program: Command, data: CompletionData): string =>
  shell === 'bash' ? renderBash(program, data) : shell === 'zsh' ? renderZsh(program, data) : renderFish(program, data);

/** The completion data this program's scripts are generated with. */
export async function completionData(): Promise<CompletionData> {
  const { SETTING_KEYS } = await import('../commands/config.js');
  const { SKUS } = await import('../../core/model-names.js');
  const entries = Object.entries(SETTING_KEYS);
  return {
    skus: SKUS,
    // The first clause of each meaning is enough for a menu.
    configKeys: Object.fromEntries(entries.map(([key, setting]) => [key, setting.describe.replace(/\s*[(:;].*$/, '')])),
    configValues: Object.fromEntries(entries.flatMap(([key, setting]) => (setting.values ? [[key, setting.values]] : []))),
    routePatterns: ['claude-*'],
  };
}
