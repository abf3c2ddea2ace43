import { chatFormat } from '../formats/chat/chat-format.js';
import { messagesFormat } from '../formats/messages/messages-format.js';
import { responsesFormat } from '../formats/responses/responses-format.js';
import type { ApiResponse } from '../handlers/api.js';
import { handleCompletion } from '../handlers/completion.js';
import type { RequestContext } from '../handlers/context.js';
import { handleCountTokens } from '../handlers/count-tokens.js';
import { handleModel, handleModels, MODEL_PATH_PREFIX } from '../handlers/models.js';
import { handleWhoami } from '../handlers/whoami.js';

export type ErrorShape = 'openai' | 'anthropic';

export interface Endpoint {
  /** A short name for logs and metrics: the client format for the model endpoints. */
  name: string;
  method: 'GET' | 'POST';
  handle(context: RequestContext): Promise<ApiResponse>;
  errorShape: ErrorShape;
  /** Messages clients must also send a version header. */
  needsVersion?: boolean;
}

/** The one path with a parameter: GET /v1/models/{id}. */
const MODEL_PATH = `${MODEL_PATH_PREFIX}{id}`;

/** The authenticated endpoints: the spec's section 4, plus Anthropic's token counting. */
export const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  '/whoami': { name: 'whoami', method: 'GET', handle: handleWhoami, errorShape: 'openai' },
  '/v1/models': { name: 'models', method: 'GET', handle: handleModels, errorShape: 'openai' },
  [MODEL_PATH]: { name: 'models', method: 'GET', handle: handleModel, errorShape: 'openai' },
  '/v1/chat/completions': { name: 'chat', method: 'POST', handle: (context) => handleCompletion(context, chatFormat), errorShape: 'openai' },
  '/v1/responses': { name: 'responses', method: 'POST', handle: (context) => handleCompletion(context, responsesFormat), errorShape: 'openai' },
  '/v1/messages': {
    name: 'messages',
    method: 'POST',
    handle: (context) => handleCompletion(context, messagesFormat),
    errorShape: 'anthropic',
    needsVersion: true,
  },
  '/v1/messages/count_tokens': { name: 'count_tokens', method: 'POST', handle: handleCountTokens, errorShape: 'anthropic', needsVersion: true },
};

/**
 * The endpoint serving a path, with its table key (a fixed string, fit for logs and metrics). A
 * path is client input, so it is never looked up through a prototype.
 */
export function findEndpoint(path: string): { key: string; endpoint: Endpoint } | undefined {
  if (Object.hasOwn(ENDPOINTS, path)) return { key: path, endpoint: ENDPOINTS[path]! };
  if (path.startsWith(MODEL_PATH_PREFIX) && path.length > MODEL_PATH_PREFIX.length && !path.includes('/', MODEL_PATH_PREFIX.length)) {
    return { key: MODEL_PATH, endpoint: ENDPOINTS[MODEL_PATH]! };
  }
  return undefined;
}
