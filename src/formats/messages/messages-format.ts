import { MODEL_ID_FAMILIES } from '../../core/model-names.js';
import { anthropicErrorBody } from '../anthropic-error.js';
import type { ClientFormat } from '../client-format.js';
import { forwardedJsonReply } from '../shared/forwarded.js';
import { forwardMessagesStream } from './forward-stream.js';
import { API_KEY_OR_BEARER } from '../shared/key-sources.js';
import { decodeMessagesRequest, type MessagesOptions } from './decode-request.js';
import { encodeMessagesReply } from './encode-reply.js';
import { encodeMessagesStream } from './encode-stream.js';
import { anthropicModelEntry, anthropicModelList } from './models-list.js';

/** The last version found valid: a client sends the same one on every call, and a Date per call costs more than the rest of the check. */
let lastCalendarDate = '';

/** `anthropic-version` (or the spec's `vendor-version`) must be a date; any date is accepted. */
const isCalendarDate = (text: string): boolean => {
  if (text === lastCalendarDate) return true;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || !date.toISOString().startsWith(text)) return false;
  lastCalendarDate = text;
  return true;
};

/**
 * Sent along to an Anthropic upstream the body is forwarded to: the version the client's body is
 * written for and the betas it turns on (https://docs.anthropic.com/en/api/beta-headers), as Claude
 * Code's gateway protocol asks (https://code.claude.com/docs/en/llm-gateway-protocol).
 */
const FORWARD_HEADERS = ['anthropic-version', 'anthropic-beta'];

/** Anthropic Messages, with its token counting. */
export const messagesFormat: ClientFormat<MessagesOptions> & { readonly name: 'messages' } = {
  name: 'messages',
  routes: [
    { method: 'POST', path: '/v1/messages' },
    { method: 'POST', path: '/v1/messages/count_tokens', name: 'count_tokens', serves: 'count-tokens' },
  ],
  keySources: API_KEY_OR_BEARER,
  requiredHeaders: [{ name: 'anthropic-version', aliases: ['vendor-version'], expected: 'a date such as 2023-06-01', example: '2023-06-01', valid: isCalendarDate }],
  forwardHeaders: FORWARD_HEADERS,
  // Anthropic's SDK sends anthropic-version on every call, the models endpoints included.
  models: { claims: (headers) => headers['anthropic-version'] !== undefined, list: anthropicModelList, entry: anthropicModelEntry },
  modelIds: MODEL_ID_FAMILIES.anthropic,
  decode: decodeMessagesRequest,
  encodeReply: encodeMessagesReply,
  encodeStream: encodeMessagesStream,
  errorBody: anthropicErrorBody,
  baseUrl: {
    // Anthropic's SDKs add /v1/messages to the base URL themselves (so does Claude Code); the AI SDK's provider, which adds only /messages, is told by the path it sent.
    take: (origin) => `Claude Code (ANTHROPIC_BASE_URL) and Anthropic's SDKs take ${origin}, without /v1, and add /v1 themselves`,
    status: 400,
  },
  // An upstream of this format answers as it is: forwarded, model and svc_meta aside.
  forward: { allows: () => true, reply: forwardedJsonReply, stream: forwardMessagesStream },
};

// This format's name, among those a backend's wireFormat and a forwarded body may carry (src/core/request.ts).
declare module '../../core/request.js' {
  interface FormatNames {
    messages: true;
  }
}
