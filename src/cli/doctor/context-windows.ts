import type { Settings } from '../../config/settings.js';
import { formatCount } from '../../core/format-numbers.js';
import { contextWindowOf } from '../../routing/context-windows.js';
import { isSkuName } from '../../core/model-names.js';
import { FALLBACK_CONTEXT_WINDOW } from '../../formats/responses/codex-models.js';
import { pass, warn, type CheckResult } from './result.js';

/**
 * Each routed SKU has a known context window. Without one, Codex is told a fallback and Claude
 * Code assumes 1M tokens, so a session never compacts until the upstream refuses the prompt.
 */
export function checkContextWindows(settings: Settings): CheckResult[] {
  return Object.keys(settings.routes)
    .filter((model) => isSkuName(model) && !model.includes('*'))
    .map((model) => {
      const id = `window:${model}`;
      const lookup = contextWindowOf(settings, model);
      if (lookup.known) return pass(id, `${formatCount(lookup.window.tokens)} tokens (${lookup.window.from})`);
      if (lookup.reason === 'offline') return pass(id, 'served offline; no window to tell clients');
      return warn(
        id,
        `unknown for ${lookup.targets.join(', ')}: Claude Code assumes 1M tokens and Codex is told ${formatCount(FALLBACK_CONTEXT_WINDOW)}, so sessions may outgrow the model`,
        `Set it: svc-router routes window ${model} TOKENS (or for the target: svc-router routes window ${lookup.targets[0]} TOKENS), then run svc-router connect claude --write again (Codex reads it from the router).`,
      );
    });
}
