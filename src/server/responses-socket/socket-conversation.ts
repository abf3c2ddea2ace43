/** How much a socket keeps for previous_response_id when its client runs several streams on it. */
export interface ConversationBounds {
  /** Completed responses kept per named stream (the oldest goes first); the default stream keeps one, as OpenAI does per socket. */
  turnsPerStream: number;
  /** Characters of kept conversation (each response's items written out) across the socket; past it the oldest response goes first. */
  keptChars: number;
}

interface Kept {
  stream: string | undefined;
  items: readonly unknown[];
  chars: number;
}

/**
 * What one Responses socket remembers so a turn may name a previous response instead of resending
 * it: per completed response, its id and the items up to its end (its input, then its output).
 * OpenAI keeps "the most recent response" in memory per connection (developers.openai.com,
 * "WebSocket mode"); with `stream_id` lanes each stream has its own latest response, and a new
 * stream may fork from any response the socket still holds (the SDK's ResponseCreate.stream_id:
 * "a new lane can fork from a response created on another lane"). So the default stream keeps
 * one response, as before, and each named stream keeps its last `turnsPerStream`, all under one
 * character budget per socket. In memory only, never written anywhere; it goes with the socket.
 * A conversation larger than the router takes as one request body is not kept: the client is told
 * the id is unknown and sends the whole input, which then meets the same limit it would over HTTP.
 *
 * Items are shared between a response and the one continuing it (the arrays hold the same objects),
 * so `chars` over-counts what is held: the budget is an upper bound, never an under-estimate.
 */
export class SocketConversation {
  /** In the order they were kept: Map iteration order makes the first entry the oldest. */
  private readonly kept = new Map<string, Kept>();
  private chars = 0;
  private readonly bounds: ConversationBounds;

  constructor(
    private readonly maxChars: number,
    bounds: Partial<ConversationBounds> = {},
  ) {
    this.bounds = { turnsPerStream: bounds.turnsPerStream ?? 32, keptChars: bounds.keptChars ?? Number.POSITIVE_INFINITY };
  }

  /** The items a turn continuing `id` starts with; undefined when this socket does not hold it. */
  itemsUpTo(id: string): readonly unknown[] | undefined {
    return this.kept.get(id)?.items;
  }

  /** The stream a held response was made on (for a steer, whose target names the stream). */
  streamOf(id: string): string | undefined {
    return this.kept.get(id)?.stream;
  }

  has(id: string): boolean {
    return this.kept.has(id);
  }

  remember(id: string, input: readonly unknown[], output: readonly unknown[], stream?: string): void {
    const items = [...input, ...output];
    const chars = written(items);
    if (chars === undefined || chars > this.maxChars) return this.forget(stream);
    const limit = stream === undefined ? 1 : this.bounds.turnsPerStream;
    const mine = [...this.kept].filter(([, kept]) => kept.stream === stream);
    for (const [oldId] of mine.slice(0, Math.max(0, mine.length - limit + 1))) this.drop(oldId);
    this.kept.set(id, { stream, items, chars });
    this.chars += chars;
    for (const oldId of this.kept.keys()) {
      if (this.chars <= this.bounds.keptChars || oldId === id) break;
      this.drop(oldId);
    }
  }

  /** Forgets a stream's responses (a failed turn: OpenAI evicts the connection's response), or all of them with no stream given and none named. */
  forget(stream?: string): void {
    for (const [id, kept] of this.kept) if (kept.stream === stream) this.drop(id);
  }

  forgetAll(): void {
    this.kept.clear();
    this.chars = 0;
  }

  /** Characters held now (what `keptChars` bounds). */
  get heldChars(): number {
    return this.chars;
  }

  private drop(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    this.kept.delete(id);
    this.chars -= kept.chars;
  }
}

/** The items' length written out; undefined for items too deep to be written out (a RangeError). */
function written(items: unknown[]): number | undefined {
  try {
    return JSON.stringify(items).length;
  } catch {
    return undefined;
  }
}
