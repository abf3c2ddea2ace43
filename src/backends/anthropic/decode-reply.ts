import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import { errorMessageOf } from '../http/upstream-error.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import { readAnthropicReply } from './api.js';
import { usageFromAnthropic } from './decode-usage.js';
import { finishReasonFromAnthropic } from './map-stop-reason.js';

interface MessageBody {
  id?: string;
  type?: string;
  content?: Array<{ type: string; text?: string; thinking?: string; signature?: string; data?: string; id?: string; name?: string; input?: unknown }>;
  stop_reason?: string | null;
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
  for (const block of body.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text ?? '' });
    else if (block.type === 'thinking') content.push({ type: 'reasoning', text: block.thinking ?? '', origin: 'anthropic', ...(block.signature ? { signature: block.signature } : {}) });
    else if (block.type === 'redacted_thinking') content.push({ type: 'reasoning', text: '', redactedData: block.data ?? '', origin: 'anthropic' });
    else if (block.type === 'tool_use') content.push({ type: 'tool-call', id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) });
  }
  return {
    ...(body.id ? { id: body.id } : {}),
    content,
    finishReason: finishReasonFromAnthropic(body.stop_reason),
    usage: usageFromAnthropic(body.usage),
  };
}
