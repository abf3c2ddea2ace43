/** One step of a route: a backend, and the model name to ask it for (default: the client's). */
export interface Target {
  backend: string;
  upstreamModel?: string;
  /** Set on a weighted route's candidates to lead the chain (src/routing/chain-lead.ts draws among them). */
  weight?: number;
}

/** Parses `BACKEND[:UPSTREAM_MODEL]`; the model part may itself hold colons (`llama3:8b`). */
export function parseTarget(text: string): Target {
  const colon = text.indexOf(':');
  if (colon === -1) return { backend: text };
  const upstreamModel = text.slice(colon + 1);
  return { backend: text.slice(0, colon), ...(upstreamModel ? { upstreamModel } : {}) };
}

export const formatTarget = (target: Target): string =>
  target.upstreamModel ? `${target.backend}:${target.upstreamModel}` : target.backend;
