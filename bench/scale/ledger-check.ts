import type { MixedResult } from './mixed-load.js';

export interface Whoami {
  tokens_used: number;
  requests: number;
}

/** What the shared ledger says next to what the clients were told. */
export interface LedgerCheck {
  whoamiTokens: number;
  whoamiRequests: number;
  clientTokens: number;
  clientAnswers: number;
  /** Counted in Redis, but no client read its usage (a router died between billing and answering). */
  billedNotSeen: number;
  /** A client read usage that Redis never counted: usage lost. */
  seenNotBilled: number;
  exact: boolean;
}

/** /whoami of one developer from one router. */
export async function whoami(origin: string, key: string): Promise<Whoami> {
  const response = await fetch(`${origin}/whoami`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET ${origin}/whoami: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { usage: Whoami }).usage;
}

/**
 * /whoami once the routers have written their queues: every router answers the same twice in a
 * row (a router writes its records to Redis in batches, a few milliseconds after answering).
 */
export async function settledWhoami(origins: string[], key: string): Promise<Whoami> {
  let previous = '';
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answers = await Promise.all(origins.map((origin) => whoami(origin, key)));
    const now = JSON.stringify(answers.map((usage) => [usage.tokens_used, usage.requests]));
    if (new Set(answers.map((usage) => `${usage.tokens_used}/${usage.requests}`)).size === 1 && now === previous) return answers[0]!;
    if (Date.now() > deadline) throw new Error(`the routers' /whoami did not settle: ${now}`);
    previous = now;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function checkLedger(usage: Whoami, load: MixedResult, appliedIds: Set<string>): LedgerCheck {
  const clientTokens = load.inputTokens + load.outputTokens;
  let billedNotSeen = 0;
  for (const id of appliedIds) if (!load.seenIds.has(id)) billedNotSeen++;
  let seenNotBilled = 0;
  for (const id of load.seenIds) if (!appliedIds.has(id)) seenNotBilled++;
  return {
    whoamiTokens: usage.tokens_used,
    whoamiRequests: usage.requests,
    clientTokens,
    clientAnswers: load.answered,
    billedNotSeen,
    seenNotBilled,
    exact: usage.tokens_used === clientTokens && usage.requests === load.answered && billedNotSeen === 0 && seenNotBilled === 0 && load.seenIds.size === load.answered,
  };
}
