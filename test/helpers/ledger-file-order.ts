import fs from 'node:fs';

/**
 * Replays a ledger file in its order, as every process reads it, and gives the most that was ever
 * used and held at once. A reservation later released was either given back by a failed request
 * or taken back after losing a race: its request never ran, so only the others count. A record
 * settles its request's reservation. The cap holds when this never passes it.
 */
export function worstTotal(file: string): { worst: number; reservations: number } {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const released = new Set(lines.filter((line) => typeof line.release === 'string').map((line) => line.release as string));
  const held = new Map<string, number>();
  let used = 0;
  let worst = 0;
  let reservations = 0;
  for (const line of lines) {
    if (line.reserve) {
      reservations++;
      if (!released.has(line.reserve.id)) held.set(line.reserve.id, line.reserve.tokens);
    } else if (line.requestId) {
      held.delete(line.requestId);
      used += line.inputTokens + line.outputTokens;
    }
    worst = Math.max(worst, used + [...held.values()].reduce((sum, tokens) => sum + tokens, 0));
  }
  return { worst, reservations };
}
