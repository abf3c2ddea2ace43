/** One server-sent event as a test reads it back: its `event:` name, if any, and its data lines joined. */
export interface SseFrame {
  event?: string;
  data: string;
}

/** Splits a raw event-stream body into frames (the router and the fakes write `\n` line ends). */
export function parseSse(text: string): SseFrame[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      return event === undefined ? { data } : { event, data };
    });
}
