/** A reservation some process holds against a developer's cap until it is settled, released or lapses. */
export interface Held {
  developer: string;
  tokens: number;
  /** When it lapses (ms since the epoch), should nothing settle or release it. */
  until: number;
  /** Its line's place in the ledger file, as far as this process has read it: earlier lines win a race. */
  seq: number;
}

/**
 * The reservations in flight, by request id, with each developer's total kept as they come and
 * go: the cap check on every request reads one number instead of walking every reservation a
 * busy router holds. Lapsed ones are swept when the earliest lapse time has passed.
 */
export class HeldReservations {
  private readonly byId = new Map<string, Held>();
  private readonly totals = new Map<string, number>();
  /** No reservation lapses before this (a lower bound: it stays when the earliest one goes). */
  private earliestUntil = Infinity;

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Held | undefined {
    return this.byId.get(id);
  }

  set(id: string, held: Held): void {
    if (this.byId.has(id)) this.delete(id);
    this.byId.set(id, held);
    this.totals.set(held.developer, (this.totals.get(held.developer) ?? 0) + held.tokens);
    if (held.until < this.earliestUntil) this.earliestUntil = held.until;
  }

  delete(id: string): boolean {
    const held = this.byId.get(id);
    if (!held) return false;
    this.byId.delete(id);
    const left = (this.totals.get(held.developer) ?? 0) - held.tokens;
    if (left > 0) this.totals.set(held.developer, left);
    else this.totals.delete(held.developer);
    return true;
  }

  /** Holds `tokens` less on reservation `id` (a lease its own requests' records draw on); how many it held less. */
  shrink(id: string, tokens: number): number {
    const held = this.byId.get(id);
    if (!held) return 0;
    const less = Math.min(held.tokens, tokens);
    held.tokens -= less;
    const left = (this.totals.get(held.developer) ?? 0) - less;
    if (left > 0) this.totals.set(held.developer, left);
    else this.totals.delete(held.developer);
    return less;
  }

  /** What the developer's live reservations hold now. */
  total(developer: string, now: number): number {
    if (now >= this.earliestUntil) this.sweep(now);
    return this.totals.get(developer) ?? 0;
  }

  /** What the developer's live reservations on lines above `before` hold, leaving out request `own`. */
  totalAbove(developer: string, now: number, before: number, own: string): number {
    if (now >= this.earliestUntil) this.sweep(now);
    let total = 0;
    this.byId.forEach((held, id) => {
      if (held.developer === developer && held.seq < before && id !== own) total += held.tokens;
    });
    return total;
  }

  private sweep(now: number): void {
    let earliest = Infinity;
    this.byId.forEach((held, id) => {
      if (held.until <= now) this.delete(id);
      else if (held.until < earliest) earliest = held.until;
    });
    this.earliestUntil = earliest;
  }
}
