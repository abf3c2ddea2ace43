import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import { errorMessageOf } from '../http/upstream-error.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import { readAnthropicReply } from './api.js';
import { usageFromAnthropic } from './decode-usage.js';
import { anthropicFinish } from './map-stop-reason.js';

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
  for (const block of body.content) {
    if (block.type === 'text') {
      const citations = Array.isArray(block.citations) && block.citations.length ? { providerMetadata: { anthropic: { citations: block.citations } } } : {};
      content.push({ type: 'text', text: block.text ?? '', ...citations });
    } else if (block.type === 'thinking') {
      content.push({ type: 'reasoning', text: block.thinking ?? '', ...(block.signature ? { providerMetadata: { anthropic: { signature: block.signature } } } : {}) });
    } else if (block.type === 'redacted_thinking') {
      content.push({ type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: block.data ?? '' } } });
    } else if (block.type === 'tool_use') {
      content.push({ type: 'tool-call', id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) });
    } else if (!skipped.includes(block.type)) {
      skipped.push(block.type);
    }
  }
  const warnings = skipped.map(skippedBlockWarning);
  const { finish, providerMetadata } = anthropicFinish(body.stop_reason, body.stop_sequence);
  return {
    ...(body.id ? { id: body.id } : {}),
    content,
    finishReason: finish.unified,
    finish,
    usage: usageFromAnthropic(body.usage),
    ...(providerMetadata ? { providerMetadata } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/**
 * Server-tool blocks (web search results, code execution output) have no canonical form: a
 * translated reply names them in this warning (a Messages client over an Anthropic upstream gets
 * them as sent, forwarded).
 */
export const skippedBlockWarning = (type: string): string => `The upstream's ${type} content blocks have no form in the router's canonical reply and were left out.`;
