import type { CanonicalRequest } from './request.js';

/**
 * Warnings name what was not honoured as asked (a setting a backend has no counterpart for, a
 * built-in tool it cannot run); they reach the client in `svc_meta.warnings`. Decoders add theirs
 * with warn(); a backend's encoder sets its own with setBackendWarnings(), which replaces those of
 * an earlier attempt in a fallback chain.
 */
export function warn(request: CanonicalRequest, warning: string): void {
  const list = (request.warnings ??= []);
  if (!list.includes(warning)) list.push(warning);
}

export function setBackendWarnings(request: CanonicalRequest, warnings: string[]): void {
  if (warnings.length) request.backendWarnings = warnings;
  else delete request.backendWarnings;
}

/** The request's warnings and the reply's, each once; undefined when there are none. */
export function allWarnings(request: CanonicalRequest, replyWarnings?: readonly string[]): string[] | undefined {
  const all = [...(request.warnings ?? []), ...(request.backendWarnings ?? []), ...(replyWarnings ?? [])];
  return all.length ? [...new Set(all)] : undefined;
}

/**
 * `x-svc-warning`'s value: the request's warnings (what it asked that was not honoured, known before
 * the reply) joined by " | ", in printable ASCII, for clients that never read svc_meta.
 */
export function warningHeader(request: CanonicalRequest): string | undefined {
  const warnings = allWarnings(request);
  return warnings ? warnings.join(' | ').replace(/[^\x20-\x7e]/g, '?') : undefined;
}
