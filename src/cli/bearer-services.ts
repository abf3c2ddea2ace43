import { hostOfUrl } from '../core/host-names.js';

/**
 * Anthropic-compatible services whose own guides give the key as `Authorization: Bearer` (Claude
 * Code's ANTHROPIC_AUTH_TOKEN) rather than `x-api-key`, by host: `backends add` suggests
 * `--auth bearer` for them. Only hosts whose vendor documents it are listed.
 */
const BEARER_HOSTS: ReadonlyMap<string, string> = new Map([
  // https://openrouter.ai/docs/guides/coding-agents/claude-code-integration: ANTHROPIC_AUTH_TOKEN, and ANTHROPIC_API_KEY left empty.
  ['openrouter.ai', 'OpenRouter'],
  // https://ngrok.com/docs/ai-gateway/agents/claude-code: the access key as ANTHROPIC_AUTH_TOKEN.
  ['gateway.ngrok.ai', "ngrok's AI Gateway"],
]);

/** The service's name when a base URL is one of them. */
export function bearerServiceOf(baseUrl: string): string | undefined {
  const host = hostOfUrl(baseUrl);
  return host === undefined ? undefined : BEARER_HOSTS.get(host);
}
