import type { Reply } from './reply.js';
import type { StreamEvent } from './stream-events.js';

/**
 * A whole reply as the one batch of canonical events its stream would have carried, for code that
 * reads replies as events whichever way they came (a policy that inspects the reply).
 */
export function replyEvents(reply: Reply): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', ...(reply.id !== undefined ? { id: reply.id } : {}) }];
  for (const part of reply.content) {
    const metadata = part.providerMetadata ? { providerMetadata: part.providerMetadata } : {};
    if (part.type === 'text') events.push({ type: 'text-start' }, { type: 'text-delta', text: part.text }, { type: 'text-end', ...metadata, ...(part.citations ? { citations: part.citations } : {}) });
    else if (part.type === 'web-search') events.push({ type: 'web-search', part });
    else if (part.type === 'reasoning') events.push({ type: 'reasoning-start' }, { type: 'reasoning-delta', text: part.text }, { type: 'reasoning-end', ...metadata });
    else events.push({ type: 'tool-call-start', id: part.id, name: part.name }, { type: 'tool-call-delta', id: part.id, argumentsDelta: part.arguments }, { type: 'tool-call-end', id: part.id, ...metadata });
  }
  events.push({
    type: 'finish',
    reason: reply.finishReason,
    usage: reply.usage,
    ...(reply.finish ? { finish: reply.finish } : {}),
    ...(reply.providerMetadata ? { providerMetadata: reply.providerMetadata } : {}),
    ...(reply.warnings ? { warnings: reply.warnings } : {}),
  });
  return events;
}
