import type { ReasoningEffort } from '../../core/request.js';

/**
 * Codex names itself in `originator` (codex_exec, codex_cli_rs, codex_vscode, …) and in its
 * user agent. It asks for `/models?client_version=…` only for providers whose key comes from an
 * `auth` command; with `env_key` it never asks and needs `model_catalog_json` instead.
 */
export const isCodex = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  /^codex[_-]/i.test(headers.originator ?? '') || /^codex[_-]/i.test(headers['user-agent'] ?? '');

/**
 * Codex's system prompt for these models. Codex rejects a catalog entry without one, and sends it
 * in place of the built-in prompt it uses for models it has no metadata for.
 */
export const CODEX_BASE_INSTRUCTIONS = [
  'You are a coding agent running in the Codex CLI, working in the user\'s workspace on their machine.',
  'Work through the task with the tools you are given: run shell commands to inspect files, build and test, and edit files with apply_patch.',
  'Read before you change anything, keep changes small and focused on the request, and follow the conventions already in the code.',
  'Do not undo changes you did not make, and do not run destructive commands (deleting data, rewriting history) unless asked.',
  'If instructions in AGENTS.md files apply to the files you touch, follow them.',
  'When you are done, reply briefly: what you changed, how you checked it, and anything left open.',
].join('\n\n');

/**
 * The window Codex is told for a model whose window is unknown (served offline, or routed to a
 * model of no known family): one every upstream in use can be expected to hold. Codex compacts
 * its history before it. `svc-router doctor` warns about routed SKUs that fall back to it.
 */
export const FALLBACK_CONTEXT_WINDOW = 128_000;

/** The levels Codex names (its `ReasoningEffort`); Anthropic's `max` is not one of them. */
const CODEX_LEVELS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** The route model's levels Codex can offer, else low, medium and high (the router maps any level to the nearest the model takes). */
const codexLevels = (levels: readonly ReasoningEffort[] | undefined): readonly ReasoningEffort[] => {
  const offered = (levels ?? []).filter((level) => CODEX_LEVELS.includes(level));
  return offered.length ? offered : ['low', 'medium', 'high'];
};

/**
 * Codex 0.169's model catalog (`{"models": [ModelInfo…]}`), the shape of both its `/models`
 * answer and its `model_catalog_json` file. Listing the SKUs here stops the "model metadata not
 * found" fallback, which withholds the apply_patch tool; only the fields Codex requires, plus
 * apply_patch, parallel calls, the context window and the prompt, are set.
 */
export function codexModelCatalog(
  ids: readonly string[],
  baseInstructions: string = CODEX_BASE_INSTRUCTIONS,
  contextWindow: (id: string) => number | undefined = () => undefined,
  reasoningLevels: (id: string) => readonly ReasoningEffort[] | undefined = () => undefined,
) {
  return {
    models: ids.map((slug, index) => ({
      slug,
      display_name: slug,
      description: `svc-router SKU ${slug}`,
      supported_reasoning_levels: codexLevels(reasoningLevels(slug)).map((effort) => ({ effort, description: `${effort} reasoning effort` })),
      shell_type: 'shell_command',
      visibility: 'list',
      supported_in_api: true,
      priority: index + 1,
      support_verbosity: false,
      truncation_policy: { mode: 'bytes', limit: 10_000 },
      experimental_supported_tools: [] as string[],
      apply_patch_tool_type: 'freeform',
      supports_parallel_tool_calls: true,
      context_window: contextWindow(slug) ?? FALLBACK_CONTEXT_WINDOW,
      input_modalities: ['text', 'image'],
      base_instructions: baseInstructions,
    })),
  };
}
