import type { CanonicalRequest } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';

/**
 * What becomes of each `anthropic-beta` feature (https://docs.anthropic.com/en/api/beta-headers)
 * on a route that translates Messages to another upstream. An Anthropic upstream is sent the
 * header as the client wrote it (messages-format.ts forwards it), so there every beta is its own.
 *
 * - `no-effect`: nothing the answer depends on (the client naming itself, a shape every route takes).
 * - `mapped`: the body fields it turns on are translated (see decode-request.ts).
 * - `own-feature`: the body fields it turns on are handled, and named where not honoured, by the
 *   feature that owns them.
 * - `named`: no counterpart elsewhere: named in svc_meta.warnings (and x-svc-warning).
 */
export type BetaHandling = 'no-effect' | 'mapped' | 'own-feature' | 'named';

export interface BetaEntry {
  handling: BetaHandling;
  /** What happens on a translating route, in a few words. */
  elsewhere: string;
}

export const ANTHROPIC_BETAS: ReadonlyMap<string, BetaEntry> = new Map<string, BetaEntry>([
  ['claude-code-20250219', { handling: 'no-effect', elsewhere: 'Claude Code naming itself; nothing to honour' }],
  ['interleaved-thinking-2025-05-14', { handling: 'named', elsewhere: "thinking between tool calls is Anthropic's; the upstream reasons its own way" }],
  ['context-management-2025-06-27', { handling: 'own-feature', elsewhere: 'context_management.edits: the router applies them (context editing)' }],
  ['thinking-token-count-2026-05-13', { handling: 'named', elsewhere: "Anthropic's own count of thinking tokens; usage reports the upstream's reasoning tokens where it gives them" }],
  ['advanced-tool-use-2025-11-20', { handling: 'own-feature', elsewhere: 'defer_loading tools and tool_reference blocks: the tool search feature (deferred tools listed in svc_meta.dropped_tools)' }],
  ['effort-2025-11-24', { handling: 'mapped', elsewhere: "output_config.effort becomes the upstream's reasoning effort" }],
  ['structured-outputs-2025-12-15', { handling: 'mapped', elsewhere: "output_config.format becomes the upstream's JSON schema output" }],
  ['structured-outputs-2025-11-13', { handling: 'mapped', elsewhere: "output_config.format becomes the upstream's JSON schema output" }],
  ['afk-mode-2026-01-31', { handling: 'mapped', elsewhere: 'auto mode: safeguards answered by the safety verdicts policy' }],
  ['dangerous-tool-use-2026-09-03', { handling: 'mapped', elsewhere: 'safeguards: answered by the safety verdicts policy (safeguards.classifier)' }],
  ['mid-conversation-tool-changes-2026-07-01', { handling: 'no-effect', elsewhere: 'each request sends its tools as they are; every upstream takes a changed list' }],
  ['mid-conversation-system-2026-04-07', { handling: 'mapped', elsewhere: 'role "system" messages inside messages stay system messages in place' }],
  ['thinking-display-updates-2026-08-18', { handling: 'mapped', elsewhere: 'thinking.display summarized/omitted mapped; other values named' }],
  ['redact-thinking-2026-02-12', { handling: 'named', elsewhere: "redacted thinking is Anthropic's; the upstream shows reasoning its own way" }],
  ['prompt-caching-scope-2026-01-05', { handling: 'named', elsewhere: "cache scopes are Anthropic's; the upstream caches its own way" }],
  ['fine-grained-tool-streaming-2025-05-14', { handling: 'no-effect', elsewhere: 'tool arguments stream as the upstream sends them' }],
]);

/** A client's header holds a handful; more than this are named together, not one by one. */
const MAX_BETAS = 32;

/**
 * Names in the request's warnings, for a translating route, each beta it asked for that such a
 * route does not honour (`named` ones and ones not known here); an Anthropic upstream gets them all
 * in the header and no warning.
 */
export function nameUnhonouredBetas(header: string | undefined, request: CanonicalRequest): void {
  if (!header) return;
  const betas = [...new Set(header.split(',').map((beta) => beta.trim()).filter(Boolean))];
  for (const beta of betas.slice(0, MAX_BETAS)) {
    const entry = ANTHROPIC_BETAS.get(beta);
    if (entry && entry.handling !== 'named') continue;
    const why = entry ? entry.elsewhere : 'not known to svc-router';
    keepForSameFormat(request, 'anthropic-beta', `${beta} is honoured only by an Anthropic upstream (${why}).`, false);
  }
  if (betas.length > MAX_BETAS) keepForSameFormat(request, 'anthropic-beta', `${betas.length - MAX_BETAS} more betas are honoured only by an Anthropic upstream.`, false);
}
