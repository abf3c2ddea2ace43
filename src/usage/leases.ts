import type { ReserveRequest } from './ledger.js';

/** A lease is this share of what is left of the cap when it is taken (1/8): leases shrink as the budget does. */
export const LEASE_SHARE = 8;
/**
 * A lease is taken only when it holds at least this many of the largest ask that prompted it, so
 * only with LEASE_SHARE × LEASE_ASKS (256) such asks left: near the cap, none is, and a lease
 * spares at least this many writes.
 */
export const LEASE_ASKS = 32;
/** A lease is taken when one turn of the event loop asks this many reservations of one developer (a busy router). */
export const LEASE_AFTER = 2;

/**
 * A slice of a developer's cap that this process holds with one reservation line, and admits its
 * own requests from without writing anything. Others hold it as `tokens` less what the records of
 * requests admitted under it used (each such record names it).
 */
export interface Lease {
  id: string;
  developer: string;
  /** Tokens the lease line holds. */
  tokens: number;
  /** What recorded requests admitted under it used. */
  drawn: number;
  /** What requests admitted under it, not yet recorded or released, hold. */
  granted: number;
  until: number;
  /** No longer admitting: given back (its requests in flight kept) at the next write. */
  retiring: boolean;
  /** Requests in flight under it → tokens each holds. */
  readonly grants: Map<string, number>;
}

/** This process's leases: at most one per developer admitting, by developer and by the requests admitted under it. */
export class Leases {
  private readonly byDeveloper = new Map<string, Lease>();
  private readonly byRequest = new Map<string, Lease>();
  private taken = 0;

  constructor(private readonly prefix: string) {}

  /**
   * Admits the request under its developer's lease when all it asks fits in what the lease has
   * left and lives as long as the request may: the tokens held for it, or undefined to ask the
   * ledger (the lease, too small or too short-lived now, is retired).
   */
  admit(request: ReserveRequest, now: number): number | undefined {
    const lease = this.byDeveloper.get(request.developer);
    if (!lease || lease.retiring) return undefined;
    const ask = Math.max(request.tokens, request.minimum);
    if (now + request.ttlMs > lease.until || lease.drawn + lease.granted + ask > lease.tokens || this.byRequest.has(request.requestId)) {
      lease.retiring = true;
      return undefined;
    }
    lease.granted += ask;
    lease.grants.set(request.requestId, ask);
    this.byRequest.set(request.requestId, lease);
    return ask;
  }

  /** What the developer's lease holds that no request of its has: held from others, free for this process. */
  slack(developer: string): number {
    const lease = this.byDeveloper.get(developer);
    return lease && !lease.retiring ? Math.max(0, lease.tokens - lease.drawn - lease.granted) : 0;
  }

  /** Whether the developer has a lease admitting. */
  has(developer: string): boolean {
    const lease = this.byDeveloper.get(developer);
    return lease !== undefined && !lease.retiring;
  }

  /** A leased request's usage: the lease it drew on (its record names it), or undefined for a request not admitted under one. */
  settle(requestId: string, tokens: number): Lease | undefined {
    const lease = this.byRequest.get(requestId);
    if (!lease) return undefined;
    this.byRequest.delete(requestId);
    lease.granted -= lease.grants.get(requestId) ?? 0;
    lease.grants.delete(requestId);
    lease.drawn += tokens;
    return lease;
  }

  /** A leased request that failed: its share goes back to the lease. False for a request not admitted under one. */
  giveBack(requestId: string): boolean {
    const lease = this.byRequest.get(requestId);
    if (!lease) return false;
    this.byRequest.delete(requestId);
    lease.granted -= lease.grants.get(requestId) ?? 0;
    lease.grants.delete(requestId);
    return true;
  }

  /** A lease to ask the ledger for (its line is written, and may lose a race, before it admits). */
  propose(developer: string, tokens: number, until: number): Lease {
    return { id: `${this.prefix}-${++this.taken}`, developer, tokens, drawn: 0, granted: 0, until, retiring: false, grants: new Map() };
  }

  /** The lease, granted, admits from now on. */
  start(lease: Lease): void {
    this.byDeveloper.set(lease.developer, lease);
  }

  retireAll(): void {
    for (const lease of this.byDeveloper.values()) lease.retiring = true;
  }

  /** The leases that stopped admitting, forgotten here: their requests in flight become reservations of their own. */
  takeRetired(): Lease[] {
    const retired: Lease[] = [];
    for (const [developer, lease] of this.byDeveloper) {
      if (!lease.retiring) continue;
      this.byDeveloper.delete(developer);
      for (const requestId of lease.grants.keys()) this.byRequest.delete(requestId);
      retired.push(lease);
    }
    return retired;
  }
}
