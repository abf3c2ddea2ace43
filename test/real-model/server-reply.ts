import { parseSse } from '../helpers/sse-frames.js';
import type { Counted } from './clients.js';
import type { Exchange } from './recording-proxy.js';

/**
 * What the server itself counted for one exchange, read from its own reply in its own format:
 * all prompt tokens (the part reused from its KV cache included), that reused part, and the tokens
 * it generated.
 */
export function serverCounted(exchange: Exchange): Counted {
  const streamed = /^\s*(event|data):/.test(exchange.responseBody);
  const path = exchange.path.replace(/\?.*$/, '');
  if (path.endsWith('/chat/completions')) {
    const usage = streamed ? lastWith(exchange, 'usage')?.usage : JSON.parse(exchange.responseBody).usage;
    return { input: usage.prompt_tokens, cached: usage.prompt_tokens_details?.cached_tokens ?? 0, output: usage.completion_tokens };
  }
  if (path.endsWith('/messages')) {
    if (!streamed) return anthropicCounted(JSON.parse(exchange.responseBody).usage);
    const start = events(exchange).find((event) => event.type === 'message_start')?.message?.usage ?? {};
    const delta = [...events(exchange)].reverse().find((event) => event.type === 'message_delta')?.usage ?? {};
    // message_delta's counts are cumulative and win where given (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
    return anthropicCounted({ ...start, ...delta });
  }
  if (path.endsWith('/responses')) {
    const response = streamed ? events(exchange).find((event) => event.type === 'response.completed' || event.type === 'response.incomplete')?.response : JSON.parse(exchange.responseBody);
    const usage = response.usage;
    return { input: usage.input_tokens, cached: usage.input_tokens_details?.cached_tokens ?? 0, output: usage.output_tokens };
  }
  throw new Error(`no usage to read from ${exchange.path}`);
}

function anthropicCounted(usage: { input_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number; output_tokens?: number }): Counted {
  const cached = usage.cache_read_input_tokens ?? 0;
  return { input: (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0), cached, output: usage.output_tokens ?? 0 };
}

function events(exchange: Exchange): any[] {
  return parseSse(exchange.responseBody)
    .filter((frame) => frame.data !== '[DONE]')
    .map((frame) => JSON.parse(frame.data));
}

function lastWith(exchange: Exchange, key: string): any {
  return events(exchange).reverse().find((event) => event[key]);
}

/** The server's own timings of one exchange, where its format carries them (Chat and Responses do; Messages does not). */
export function serverTimings(exchange: Exchange): { prompt_n: number; prompt_ms: number; predicted_n: number; predicted_ms: number } | undefined {
  const streamed = /^\s*(event|data):/.test(exchange.responseBody);
  try {
    return streamed ? lastWith(exchange, 'timings')?.timings : JSON.parse(exchange.responseBody).timings;
  } catch {
    return undefined;
  }
}

/** One line on how fast the server was over these exchanges, by its own timings: for a test run's report, never asserted. */
export function speedReport(exchanges: Exchange[]): string {
  const timings = exchanges.flatMap((exchange) => serverTimings(exchange) ?? []);
  const sum = (key: keyof NonNullable<ReturnType<typeof serverTimings>>) => timings.reduce((total, timing) => total + timing[key], 0);
  const rate = (tokens: number, ms: number) => (ms > 0 ? Math.round((tokens / ms) * 1000) : 0);
  return `${sum('predicted_n')} tokens generated at ${rate(sum('predicted_n'), sum('predicted_ms'))} tokens/s, ${sum('prompt_n')} prompt tokens processed at ${rate(sum('prompt_n'), sum('prompt_ms'))} tokens/s (${timings.length} timed answers)`;
}

/** The text the server answered with, read from its own format, streamed or not. */
export function serverText(exchange: Exchange): string {
  const streamed = /^\s*(event|data):/.test(exchange.responseBody);
  const path = exchange.path.replace(/\?.*$/, '');
  if (path.endsWith('/chat/completions')) {
    if (!streamed) return JSON.parse(exchange.responseBody).choices[0].message.content ?? '';
    return events(exchange).map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
  }
  if (path.endsWith('/messages')) {
    if (!streamed) return JSON.parse(exchange.responseBody).content.map((block: any) => (block.type === 'text' ? block.text : '')).join('');
    return events(exchange).map((event) => (event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : '')).join('');
  }
  if (path.endsWith('/responses')) {
    if (!streamed) return JSON.parse(exchange.responseBody).output.map((item: any) => (item.type === 'message' ? item.content.map((part: any) => part.text ?? '').join('') : '')).join('');
    return events(exchange).map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('');
  }
  throw new Error(`no text to read from ${exchange.path}`);
}
