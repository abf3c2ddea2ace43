/** Tokens and nano-dollars (1e-9 USD), the two things a spending cap may count. */
export interface Spend {
  tokens: number;
  nanoUsd: number;
}

/** A cap on each of them; a limit left out is not enforced. */
export interface SpendCaps {
  tokens?: number;
  nanoUsd?: number;
}

/** A request asking to hold part of a scope's caps (one client session's) before it is forwarded. */
export interface SpendAsk {
  requestId: string;
  caps: SpendCaps;
  /** Must fit in what is left, or nothing is held: the request's estimated input (and its price). */
  minimum: Spend;
  /** What is held when it fits: estimated input plus max output. When less is left, what is left is held. */
  wanted: Spend;
  /** How long a hold outlives a router that dies before settling it. */
  holdTtlMs: number;
}

/** What a hold found and took, decided in one step against every request in flight. */
export interface SpendVerdict {
  granted: boolean;
  /** The limit that refused it, when one did. */
  refusedBy?: keyof SpendCaps;
  /** Settled use of the scope when it was decided. */
  used: Spend;
  /** Held by the scope's other requests in flight when it was decided. */
  held: Spend;
  /** Held for this request (nothing when refused). */
  took: Spend;
}

export const NO_SPEND: Readonly<Spend> = Object.freeze({ tokens: 0, nanoUsd: 0 });

/**
 * The usage cap's rule (usage/ledger.ts decideReservation), per limit: refuse when the minimum does
 * not fit in what is left, else hold what fits of the wanted amount. Both limits must agree. The
 * Redis script in redis-state.ts decides the same way.
 */
export function decideSpend(ask: SpendAsk, used: Spend, held: Spend): SpendVerdict {
  const took: Spend = { tokens: 0, nanoUsd: 0 };
  for (const limit of ['tokens', 'nanoUsd'] as const) {
    const cap = ask.caps[limit];
    if (cap === undefined) {
      took[limit] = Math.max(ask.wanted[limit], ask.minimum[limit]);
      continue;
    }
    const left = cap - used[limit] - held[limit];
    if (left <= 0 || ask.minimum[limit] > left) return { granted: false, refusedBy: limit, used, held, took: { ...NO_SPEND } };
    took[limit] = Math.min(Math.max(ask.wanted[limit], ask.minimum[limit]), left);
  }
  return { granted: true, used, held, took };
}
