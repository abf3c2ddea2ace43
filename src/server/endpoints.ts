import { chatFormat } from '../formats/chat/chat-format.js';
import { messagesFormat } from '../formats/messages/messages-format.js';
import { responsesFormat } from '../formats/responses/responses-format.js';
import type { ApiResponse } from '../handlers/api.js';
import { handleCompletion } from '../handlers/completion.js';
import type { RequestContext } from '../handlers/context.js';
import { handleModels } from '../handlers/models.js';
import { handleWhoami } from '../handlers/whoami.js';

export type ErrorShape = 'openai' | 'anthropic';

export interface Endpoint {
  method: 'GET' | 'POST';
  handle(context: RequestContext): Promise<ApiResponse>;
  errorShape: ErrorShape;
  /** Messages clients must also send a version header. */
  needsVersion?: boolean;
}

/** The authenticated endpoints, exactly as the spec's section 4 lists them. */
export const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  '/whoami': { method: 'GET', handle: handleWhoami, errorShape: 'openai' },
  '/v1/models': { method: 'GET', handle: handleModels, errorShape: 'openai' },
  '/v1/chat/completions': { method: 'POST', handle: (context) => handleCompletion(context, chatFormat), errorShape: 'openai' },
  '/v1/responses': { method: 'POST', handle: (context) => handleCompletion(context, responsesFormat), errorShape: 'openai' },
  '/v1/messages': { method: 'POST', handle: (context) => handleCompletion(context, messagesFormat), errorShape: 'anthropic', needsVersion: true },
};
