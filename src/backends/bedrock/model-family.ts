import { RouterError } from '../../core/errors.js';

/**
 * Bedrock serves each model family in its own body format on InvokeModel; this backend speaks
 * Anthropic's (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html).
 * Claude ids are `anthropic.claude-…`, or with a cross-region inference profile's prefix
 * (`us.anthropic.claude-…`, `global.…`), or an ARN naming one of those.
 */
const CLAUDE = /(?:^|[./])anthropic\.claude-/;

export function requireClaude(backend: string, upstreamModel: string): void {
  if (CLAUDE.test(upstreamModel)) return;
  throw new RouterError(
    400,
    'invalid_request',
    `Backend '${backend}' (bedrock) serves Anthropic Claude models only for now; '${upstreamModel.slice(0, 200)}' is not one (use an id such as anthropic.claude-sonnet-4-20250514-v1:0 or us.anthropic.claude-…).`,
  );
}

/**
 * The Anthropic name of a Bedrock Claude id, as the catalog knows it (`claude-sonnet-4-5-20250929`
 * for `us.anthropic.claude-sonnet-4-5-20250929-v1:0`): what the encoder reads capabilities by.
 */
export function claudeNameOf(upstreamModel: string): string {
  const at = upstreamModel.search(CLAUDE);
  const id = at === -1 ? upstreamModel : upstreamModel.slice(upstreamModel.indexOf('claude-', at));
  return id.replace(/-v\d+(?::\d+)?$/, '');
}
