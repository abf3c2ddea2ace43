/**
 * Bedrock serves each model family in its own body format on InvokeModel; this backend speaks
 * Anthropic's there (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html),
 * and Converse, the one format every other family takes, for the rest. Claude ids are
 * `anthropic.claude-…`, or with a cross-region inference profile's prefix (`us.anthropic.claude-…`,
 * `global.…`), or an ARN naming one of those.
 */
const CLAUDE = /(?:^|[./])anthropic\.claude-/;

export const isClaudeModel = (upstreamModel: string): boolean => CLAUDE.test(upstreamModel);

/**
 * The Anthropic name of a Bedrock Claude id, as the catalog knows it (`claude-sonnet-4-5-20250929`
 * for `us.anthropic.claude-sonnet-4-5-20250929-v1:0`): what the encoder reads capabilities by.
 */
export function claudeNameOf(upstreamModel: string): string {
  const at = upstreamModel.search(CLAUDE);
  const id = at === -1 ? upstreamModel : upstreamModel.slice(upstreamModel.indexOf('claude-', at));
  return id.replace(/-v\d+(?::\d+)?$/, '');
}
