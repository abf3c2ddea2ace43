import type { ClientFormat, FormatRoute } from '../formats/client-format.js';
import type { ApiResponse } from './api.js';
import { handleCompletion } from './completion.js';
import type { RequestContext } from './context.js';
import { handleCompact } from './compact.js';
import { handleCountTokens, handleFormatCount, handleResponsesInputTokens } from './count-tokens.js';
import { handleModel, handleModels } from './models.js';

/** The handler a format's route names (`serves`): formats sit below the handlers and name them only. */
export function formatRouteHandler(format: ClientFormat, route: FormatRoute): (context: RequestContext) => Promise<ApiResponse> {
  switch (route.serves ?? 'completion') {
    case 'completion':
      return (context) => handleCompletion(context, format);
    case 'count-tokens':
      return handleCountTokens;
    case 'input-tokens':
      return handleResponsesInputTokens;
    case 'compact':
      return handleCompact;
    case 'count':
      return (context) => handleFormatCount(context, format);
    case 'models':
      return (context) => handleModels(context, format);
    case 'model':
      return (context) => handleModel(context, format);
  }
}
