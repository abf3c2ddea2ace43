import type { SvcMeta } from '../client-format.js';

/** svc_meta with what the reply itself could not carry added to its warnings (the request's are there already). */
export function withReplyWarnings(meta: SvcMeta, warnings: readonly string[] | undefined): SvcMeta {
  if (!warnings?.length) return meta;
  const all = [...new Set([...(meta.warnings ?? []), ...warnings])];
  return { ...meta, warnings: all };
}
