/** One server-sent event as a test reads it back: its `event:` name, if any, and its data lines joined. */
export interface SseFrame {
  event?: string;
  data: string;
}

/** Splits a raw event-stream body into frames, at `\n` line ends or `\r\n` ones (Gemini's, which the router writes for Gemini clients as Google does). */
export function parseSse(text: string): SseFrame[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split(/\r?\n/);
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      return event === undefined ? { data } : { event, data };
    });
}
