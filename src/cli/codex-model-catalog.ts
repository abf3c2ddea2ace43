import type { Settings } from '../config/settings.js';
import { CODEX_BASE_INSTRUCTIONS, codexModelCatalog, knownReasoningLevels, knownWindow } from '../handlers/models.js';
import { SKUS } from '../core/model-names.js';

/**
 * The contents of a Codex `model_catalog_json` file for the router's SKUs. A Codex provider that
 * authenticates with `env_key` never asks the router for model metadata, so without this file it
 * treats every svc.* name as unknown: it warns "Model metadata … not found" and leaves out its
 * apply_patch tool. Point Codex at the file with `model_catalog_json = "/path/to/file.json"` in
 * config.toml (or `-c model_catalog_json=…`); the file replaces Codex's built-in catalog, so list
 * every model name the provider is used with. `svc-router connect codex` writes a provider whose
 * key comes from an auth command instead, which fetches this catalog from the router and needs
 * no file.
 *
 * Each entry's `context_window` is the SKU's window under `settings` (see
 * src/routing/context-windows.ts), else a conservative fallback; its reasoning levels are those the
 * route's lead model takes, from the model catalog (src/catalog/), else low, medium and high.
 *
 * Codex refuses an entry without instructions and sends them as the session's system prompt in
 * place of its built-in one, so `baseInstructions` is what the upstream model is told first.
 */
export function codexModelCatalogJson(ids: readonly string[] = SKUS, baseInstructions: string = CODEX_BASE_INSTRUCTIONS, settings?: Settings): string {
  return `${JSON.stringify(codexModelCatalog(ids, baseInstructions, settings ? knownWindow(settings) : undefined, settings ? knownReasoningLevels(settings) : undefined), null, 2)}\n`;
}
