/** One server-sent event; `name` adds an `event:` line (the Anthropic and Responses grammars use them). */
export function sse(data: unknown, name?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return name === undefined ? `data: ${payload}\n\n` : `event: ${name}\ndata: ${payload}\n\n`;
}
