import { estimateRequestTokens, tokensForChars } from '../../core/estimate-tokens.js';
import { RouterError } from '../../core/errors.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { ConverseUsage } from './converse-api.js';
import { BEDROCK_METADATA } from './converse-encode.js';
import { converseFinish, usageFromConverse } from './converse-finish.js';

/** A block of Converse's reply the canonical reply has no part for, named in a warning. */
export const unrelayedBlockWarning = (kind: string): string => `a '${kind.slice(0, 60)}' block from Bedrock's Converse API was left out: the reply has no part for it.`;

/**
 * Converse's reply (`output.message`, `stopReason`, `usage`) as a canonical reply
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
 */
export function decodeConverseReply(backend: string, body: unknown, request: CanonicalRequest): Reply {
  const reply = body as { output?: { message?: { content?: unknown } }; stopReason?: unknown; usage?: ConverseUsage } | null;
  const blocks = reply?.output?.message?.content;
  if (!Array.isArray(blocks)) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a Converse reply without output.message.content.`);
  const content: ReplyPart[] = [];
  const warnings: string[] = [];
  for (const block of blocks as Array<Record<string, any>>) {
    if (block === null || typeof block !== 'object') continue;
    if (typeof block.text === 'string') content.push({ type: 'text', text: block.text });
    else if (block.toolUse && typeof block.toolUse === 'object') {
      const { toolUseId, name, input } = block.toolUse as { toolUseId?: unknown; name?: unknown; input?: unknown };
      content.push({ type: 'tool-call', id: String(toolUseId ?? ''), name: String(name ?? ''), arguments: JSON.stringify(input ?? {}) });
    } else if (block.reasoningContent && typeof block.reasoningContent === 'object') {
      content.push(reasoningPart(block.reasoningContent));
    } else {
      const kind = Object.keys(block)[0] ?? 'unknown';
      const warning = unrelayedBlockWarning(kind);
      if (!warnings.includes(warning)) warnings.push(warning);
    }
  }
  const finish = converseFinish(reply?.stopReason);
  const outputChars = content.reduce((sum, part) => sum + (part.type === 'tool-call' ? part.arguments.length : part.type === 'web-search' ? 0 : part.text.length), 0);
  return {
    content,
    finishReason: finish.unified,
    finish,
    usage: usageFromConverse(reply?.usage) ?? { inputTokens: estimateRequestTokens(request), outputTokens: tokensForChars(outputChars) },
    ...(warnings.length ? { warnings } : {}),
  };
}

/** ReasoningContentBlock: readable text with its signature, or redacted bytes, both kept for the next turn. */
function reasoningPart(reasoning: { reasoningText?: { text?: unknown; signature?: unknown }; redactedContent?: unknown }): ReplyPart {
  if (typeof reasoning.redactedContent === 'string') return { type: 'reasoning', text: '', providerMetadata: { [BEDROCK_METADATA]: { redactedContent: reasoning.redactedContent } } };
  const text = typeof reasoning.reasoningText?.text === 'string' ? reasoning.reasoningText.text : '';
  const signature = reasoning.reasoningText?.signature;
  return { type: 'reasoning', text, ...(typeof signature === 'string' ? { providerMetadata: { [BEDROCK_METADATA]: { signature } } } : {}) };
}
