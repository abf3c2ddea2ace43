import type { CanonicalRequest, Part } from './request.js';

const CHARS_PER_TOKEN = 4;
/** Upstreams bill an image as hundreds of tokens; count a fixed share so estimates are not zero. */
const IMAGE_CHARS = 1000;

/** A rough token count (about four characters a token) for when no upstream reports usage. */
export const tokensForChars = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);
export const estimateTokens = (text: string): number => tokensForChars(text.length);

function partChars(part: Part): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.length;
    case 'tool-call':
      return part.name.length + part.arguments.length;
    case 'tool-result':
      return part.content.reduce((sum, inner) => sum + partChars(inner), 0);
    case 'image':
      return IMAGE_CHARS;
    case 'web-search':
      return part.query.length + part.results.reduce((sum, result) => sum + result.url.length + (result.title?.length ?? 0), 0);
    case 'file':
      // Text counts as itself; a PDF or a reference is billed like a few pages.
      return part.source.kind === 'text' ? part.source.text.length : part.source.kind === 'base64' ? Math.min(part.source.data.length, 4 * IMAGE_CHARS) : IMAGE_CHARS;
  }
}

export function estimateRequestTokens(request: CanonicalRequest): number {
  let chars = 0;
  for (const part of request.system) chars += part.text.length;
  for (const message of request.messages) for (const part of message.content) chars += partChars(part);
  for (const tool of request.tools) {
    chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters).length;
  }
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}
