/**
 * The Responses event stream as WebSocket messages: over a socket each server event is one text
 * message holding the JSON the SSE frame's `data:` carries (OpenAI, "WebSocket mode": the same
 * events as streaming over HTTP). The encoders hand out text in pieces that need not end on a
 * frame boundary (a long delta goes out in slices), so pieces are joined until a frame is whole.
 */
export class SseMessages {
  private pending = '';

  /** The data of every frame this piece completes, in order. */
  push(piece: string): string[] {
    this.pending += piece;
    const messages: string[] = [];
    let end = this.pending.indexOf('\n\n');
    let start = 0;
    while (end !== -1) {
      const data = frameData(this.pending.slice(start, end));
      if (data !== undefined) messages.push(data);
      start = end + 2;
      end = this.pending.indexOf('\n\n', start);
    }
    this.pending = this.pending.slice(start);
    return messages;
  }

  /** Whether text is held that no frame end has closed yet (a stream that stopped mid-frame). */
  get partial(): boolean {
    return this.pending.trim() !== '';
  }
}

/** A frame's `data:` lines joined by newlines (the SSE rule); undefined for a comment or an event without data. */
function frameData(frame: string): string | undefined {
  let data: string | undefined;
  for (const line of frame.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const value = line.slice(line[5] === ' ' ? 6 : 5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data === '[DONE]' ? undefined : data;
}
