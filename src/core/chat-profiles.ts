import { hostOfUrl } from './host-names.js';

/**
 * The provider profiles an openai-chat backend may name (`backends add … --profile NAME`): what a
 * provider needs that the generic Chat encoder must not do for every other server. The names and
 * the hosts that suggest each live here, below config and the CLI; what each profile does is in
 * src/backends/openai-chat/profiles/.
 */
export const CHAT_PROFILE_NAMES = ['openrouter', 'deepseek', 'groq', 'mistral', 'xai'] as const;
export type ChatProfileName = (typeof CHAT_PROFILE_NAMES)[number];

export const isChatProfileName = (value: unknown): value is ChatProfileName => typeof value === 'string' && (CHAT_PROFILE_NAMES as readonly string[]).includes(value);

/** The API host each provider documents; a base URL on it (or a subdomain of it) suggests that profile. */
const PROFILE_HOSTS: Readonly<Record<ChatProfileName, string>> = {
  openrouter: 'openrouter.ai',
  deepseek: 'api.deepseek.com',
  groq: 'api.groq.com',
  mistral: 'api.mistral.ai',
  xai: 'api.x.ai',
};

/** The profile a base URL's host suggests, if it is one of the providers above. */
export function suggestedChatProfile(baseUrl: string): ChatProfileName | undefined {
  const host = hostOfUrl(baseUrl);
  if (host === undefined) return undefined;
  return CHAT_PROFILE_NAMES.find((name) => host === PROFILE_HOSTS[name] || host.endsWith(`.${PROFILE_HOSTS[name]}`));
}
