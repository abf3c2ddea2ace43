/**
 * Smooth weighted round-robin (as nginx balances upstreams): each pick, every candidate gains its
 * weight and the one with the most is chosen and pays the total back. Over any run of
 * sum-of-weights picks each target is chosen exactly its weight's times, spread out rather than in
 * bursts, and with no randomness to make a test or an audit guess.
 */
export class WeightedChoice {
  /** Per balanced chain (route and rule): each target's running credit. */
  private readonly credits = new Map<string, Map<string, number>>();

  pick(chain: string, weights: ReadonlyArray<readonly [string, number]>): string | undefined {
    const usable = weights.filter(([, weight]) => Number.isFinite(weight) && weight > 0);
    if (usable.length === 0) return undefined;
    let credits = this.credits.get(chain);
    if (!credits) this.credits.set(chain, (credits = new Map()));
    let total = 0;
    let best: string | undefined;
    let bestCredit = -Infinity;
    for (const [target, weight] of usable) {
      const credit = (credits.get(target) ?? 0) + weight;
      credits.set(target, credit);
      total += weight;
      if (credit > bestCredit) {
        best = target;
        bestCredit = credit;
      }
    }
    credits.set(best!, bestCredit - total);
    return best;
  }
}
