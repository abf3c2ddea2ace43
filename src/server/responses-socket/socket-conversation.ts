/**
 * What one Responses socket remembers so a turn may name the previous response instead of
 * resending it: the last completed response's id and the items up to its end (its input, then its
 * output), as OpenAI keeps "the most recent response" in memory per connection (developers.openai.com,
 * "WebSocket mode"). One entry, in memory only, never written anywhere; it goes with the socket.
 * A conversation larger than the router takes as one request body is not kept: the client is told
 * the id is unknown and sends the whole input, which then meets the same limit it would over HTTP.
 */
export class SocketConversation {
  private last: { id: string; items: readonly unknown[] } | undefined;

  constructor(private readonly maxChars: number) {}

  /** The items a turn continuing `id` starts with; undefined when this socket does not hold it. */
  itemsUpTo(id: string): readonly unknown[] | undefined {
    return this.last !== undefined && this.last.id === id ? this.last.items : undefined;
  }

  remember(id: string, input: readonly unknown[], output: readonly unknown[]): void {
    const items = [...input, ...output];
    this.last = fits(items, this.maxChars) ? { id, items } : undefined;
  }

  forget(): void {
    this.last = undefined;
  }
}

/** Whether the items, written out, take at most `maxChars`; items too deep to be written out (a RangeError) are not kept either. */
function fits(items: unknown[], maxChars: number): boolean {
  try {
    return JSON.stringify(items).length <= maxChars;
  } catch {
    return false;
  }
}
