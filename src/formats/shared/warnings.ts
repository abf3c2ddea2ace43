import type { Finish } from '../../core/reply.js';
import type { SvcMeta } from '../client-format.js';

/** svc_meta with what the reply itself could not carry added to its warnings (the request's are there already). */
export function withReplyWarnings(meta: SvcMeta, warnings: readonly string[] | undefined): SvcMeta {
  if (!warnings?.length) return meta;
  const all = [...new Set([...(meta.warnings ?? []), ...warnings])];
  return { ...meta, warnings: all };
}

/**
 * The upstream's prompt-cache diagnostics (OpenAI's `prompt_cache_diagnostics`), named for a client
 * whose format has no field for them: the object as the upstream sent it, so nothing is lost.
 */
export function unshownDiagnostics(finish: Finish | undefined): string[] {
  const diagnostics = finish?.promptCacheDiagnostics;
  return diagnostics ? [`prompt_cache_diagnostics ${JSON.stringify(diagnostics)}: the upstream's prompt-cache comparison, which this API format has no field for.`] : [];
}

/** The reply's own warnings with its unshown prompt-cache diagnostics added. */
export function withUnshownDiagnostics(warnings: readonly string[] | undefined, finish: Finish | undefined): string[] | undefined {
  const unshown = unshownDiagnostics(finish);
  return unshown.length ? [...(warnings ?? []), ...unshown] : (warnings as string[] | undefined);
}
