import { RouterError, invalidRequest } from '../core/errors.js';
import type { Settings } from '../config/settings.js';
import type { ClientFormat } from '../formats/client-format.js';
import { modelsFormatOf } from '../formats/registry.js';
import { contextWindowOf } from '../routing/context-windows.js';
import { findConfiguredRoute } from '../routing/resolve-route.js';
import { capabilitiesOf } from '../catalog/index.js';
import { OFFLINE_BACKEND, parseTarget } from '../core/target.js';
import type { ReasoningEffort } from '../core/request.js';
import { isSkuName, SKUS } from '../core/model-names.js';
import type { ApiResponse } from './api.js';
import type { RequestContext } from './context.js';

export { CODEX_BASE_INSTRUCTIONS, codexModelCatalog } from '../formats/responses/codex-models.js';

/**
 * GET /v1/models: the three SKUs plus any other svc.* name a route serves, in the shape of the
 * format whose client asks (Anthropic's list, Codex's model catalog, OpenAI's list by default), or
 * of the format whose own models path it is (`format`).
 */
export async function handleModels({ request, settings }: RequestContext, format?: ClientFormat): Promise<ApiResponse> {
  const shape = (format ?? modelsFormatOf(request.headers, request.query)).models;
  return { status: 200, json: shape.list(listedModels(settings), request.headers, knownWindow(settings), knownReasoningLevels(settings)) };
}

/** Where the one-model endpoint lives; the rest of the path is the model id. */
const MODEL_PATH_PREFIX = '/v1/models/';

/**
 * GET /v1/models/{id} (`client.models.retrieve(id)` in both SDKs), or a format's own one-model
 * path (`{model}`): the entry of one listed model, in the list's shape, or 404. The id is compared
 * with the listed names only, never used as a key.
 */
export async function handleModel({ request, settings, params }: RequestContext, format?: ClientFormat): Promise<ApiResponse> {
  let id: string;
  try {
    id = decodeURIComponent(params?.id ?? params?.model ?? request.path.slice(MODEL_PATH_PREFIX.length).replace(/\/$/, ''));
  } catch {
    throw invalidRequest('The model id in the path is not valid percent-encoding.', 'model');
  }
  if (!listedModels(settings).includes(id)) {
    throw new RouterError(404, 'not_found', `No model '${id.slice(0, 200)}'. Use one of the svc SKUs: ${SKUS.join(', ')}.`, 'model', 'model_not_found');
  }
  return { status: 200, json: (format ?? modelsFormatOf(request.headers, request.query)).models.entry(id, knownWindow(settings)) };
}

/** A model's context window where the config or the model catalog tells it. */
export const knownWindow =
  (settings: Settings) =>
  (id: string): number | undefined => {
    const lookup = contextWindowOf(settings, id);
    return lookup.known ? lookup.window.tokens : undefined;
  };

/**
 * The effort levels a model's route leads with, from the model catalog: the levels its first real
 * target's model takes (a fallback takes the nearest of its own). Undefined when unknown.
 */
export const knownReasoningLevels =
  (settings: Settings) =>
  (id: string): readonly ReasoningEffort[] | undefined => {
    const lead = findConfiguredRoute(settings.routes, id)?.targets.map(parseTarget).find((target) => target.backend !== OFFLINE_BACKEND);
    if (!lead) return undefined;
    const type = Object.hasOwn(settings.backends, lead.backend) ? settings.backends[lead.backend]!.type : undefined;
    return capabilitiesOf(type, lead.upstreamModel ?? id)?.reasoning?.efforts;
  };

/** The three SKUs plus any other plain svc.* name a route serves. */
const listedModels = (settings: Settings): string[] => [
  ...SKUS,
  ...Object.keys(settings.routes).filter((name) => isSkuName(name) && !name.includes('*') && !(SKUS as readonly string[]).includes(name)),
];
