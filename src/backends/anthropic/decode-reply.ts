import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import { errorMessageOf } from '../http/upstream-error.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import { readAnthropicReply } from './api.js';
import { usageFromAnthropic } from './decode-usage.js';
import { anthropicFinish } from './map-stop-reason.js';
import { extraKeys, type RawAnthropicBlock } from './unread-fields.js';
import { mergeMetadata } from '../../core/provider-metadata.js';
import { canonicalCitations, searchPartOf, searchQueryOf } from './web-search.js';

/** The `message` fields the decoder reads; every other one is relayed to a Messages client. */
const KNOWN_REPLY_KEYS = new Set(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);

interface MessageBody {
  id?: string;
  type?: string;
  content?: Array<{ type: string; text?: string; thinking?: string; signature?: string | null; data?: string; id?: string; name?: string; input?: unknown; citations?: unknown; tool_use_id?: string; content?: unknown }>;
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: unknown;
}

/** An Anthropic `message` body in canonical form. */
export function decodeAnthropicReply(backend: string, raw: unknown): Reply {
  const body = readAnthropicReply(backend, raw);
  if (!body || !Array.isArray(body.content)) {
    // A 200 carrying an error body: say what the upstream said (the backend redacts it on the way out).
    const said = errorMessageOf(raw);
    throw new RouterError(502, 'upstream', `Backend '${backend}' answered without message content${said ? ` (it reported an error: ${upstreamText(said)})` : ''}.`);
  }
  const content: ReplyPart[] = [];
  const skipped: string[] = [];
  /** Server-side fallback's hops (a `fallback` block): which model answered, said to every client. */
  const answeredBy: string[] = [];
  // Blocks with no canonical form are kept on the reply with the index of the part they stood
  // before, for a Messages client to get back in place (not on the parts: those may travel on,
  // sealed into a Responses client's reasoning item).
  const placed: Array<RawAnthropicBlock & { at: number }> = [];
  // A web search is a server_tool_use (the query) and then its web_search_tool_result: one canonical part.
  const searchQueries = new Map<string, string>();
  for (const block of body.content) {
    if (block.type === 'text') {
      const cited = Array.isArray(block.citations) && block.citations.length ? block.citations : undefined;
      const citations = cited ? { citations: canonicalCitations(cited), providerMetadata: { anthropic: { citations: cited } } } : {};
      content.push({ type: 'text', text: block.text ?? '', ...citations });
    } else if (block.type === 'server_tool_use' && block.name === 'web_search') {
      searchQueries.set(block.id ?? '', searchQueryOf(block.input));
    } else if (block.type === 'web_search_tool_result') {
      const id = block.tool_use_id ?? '';
      content.push(searchPartOf(id, searchQueries.get(id) ?? '', block.content));
    } else if (block.type === 'thinking') {
      content.push({ type: 'reasoning', text: block.thinking ?? '', ...(block.signature ? { providerMetadata: { anthropic: { signature: block.signature } } } : {}) });
    } else if (block.type === 'redacted_thinking') {
      content.push({ type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: block.data ?? '' } } });
    } else if (block.type === 'tool_use') {
      content.push({ type: 'tool-call', id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) });
    } else {
      placed.push({ at: content.length, block: block as unknown as Record<string, unknown>, deltas: [] });
      if (block.type === 'fallback') answeredBy.push(fallbackWarning(block));
      else if (!skipped.includes(block.type)) skipped.push(block.type);
    }
  }
  const warnings = skipped.map(skippedBlockWarning);
  const replyExtra = extraKeys(raw, KNOWN_REPLY_KEYS);
  const own: Record<string, unknown> = {
    ...(placed.length ? { placedBlocks: placed } : {}),
    ...(replyExtra ? { replyExtra } : {}),
    ...(warnings.length ? { relayedBlockWarnings: warnings } : {}),
  };
  const finished = anthropicFinish(body.stop_reason, body.stop_sequence, (raw as { stop_details?: unknown } | null)?.stop_details);
  const { finish } = finished;
  const providerMetadata = Object.keys(own).length ? mergeMetadata(finished.providerMetadata, { anthropic: own }) : finished.providerMetadata;
  return {
    ...(body.id ? { id: body.id } : {}),
    content,
    finishReason: finish.unified,
    finish,
    usage: usageFromAnthropic(body.usage),
    ...(providerMetadata ? { providerMetadata } : {}),
    ...(warnings.length || answeredBy.length ? { warnings: [...warnings, ...answeredBy] } : {}),
  };
}

/**
 * A `fallback` block (server-side fallback, beta server-side-fallback-2026-07-01): the model that
 * declined and the one whose answer follows (https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback).
 */
export function fallbackWarning(block: unknown): string {
  const { from, to, trigger } = (block ?? {}) as { from?: { model?: unknown }; to?: { model?: unknown }; trigger?: { category?: unknown } };
  const name = (side: { model?: unknown } | undefined): string => (typeof side?.model === 'string' ? side.model : 'a model');
  const category = typeof trigger?.category === 'string' ? ` (policy category: ${trigger.category})` : '';
  return `${name(from)} declined${category}; Anthropic's server-side fallback answered with ${name(to)}.`;
}

/**
 * Server-tool blocks (web search results, code execution output) have no canonical form: a
 * Messages client gets them back whole, every other client this warning.
 */
export const skippedBlockWarning = (type: string): string => `The upstream's ${type} content blocks have no form in the router's canonical reply and were left out.`;
