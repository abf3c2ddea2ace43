/**
 * The shapes of model providers' own API keys, as their consoles issue them, so a client that
 * sends one to the router (a leftover OPENAI_API_KEY or ANTHROPIC_API_KEY) is told what it sent.
 * More specific prefixes come first: `sk-ant-` and `sk-or-` before OpenAI's bare `sk-`.
 */
const PROVIDER_KEYS: ReadonlyArray<{ provider: string; shown: string; shape: RegExp }> = [
  { provider: 'Anthropic', shown: 'sk-ant-…', shape: /^sk-ant-[A-Za-z0-9_-]{8,}$/ },
  { provider: 'OpenRouter', shown: 'sk-or-…', shape: /^sk-or-[A-Za-z0-9_-]{8,}$/ },
  { provider: 'OpenAI', shown: 'sk-proj-…', shape: /^sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{8,}$/ },
  { provider: 'OpenAI', shown: 'sk-…', shape: /^sk-[A-Za-z0-9_-]{20,}$/ },
  { provider: 'Google (Gemini)', shown: 'AIza…', shape: /^AIza[0-9A-Za-z_-]{30,}$/ },
  { provider: 'Groq', shown: 'gsk_…', shape: /^gsk_[A-Za-z0-9]{20,}$/ },
  { provider: 'xAI', shown: 'xai-…', shape: /^xai-[A-Za-z0-9]{20,}$/ },
  { provider: 'Perplexity', shown: 'pplx-…', shape: /^pplx-[A-Za-z0-9]{20,}$/ },
  { provider: 'Hugging Face', shown: 'hf_…', shape: /^hf_[A-Za-z0-9]{20,}$/ },
];

/** Whose key this is by its shape (`Anthropic`, and the prefix to show), or undefined. Never quotes the key. */
export function providerKeyOf(key: string): { provider: string; shown: string } | undefined {
  const found = PROVIDER_KEYS.find(({ shape }) => shape.test(key));
  return found && { provider: found.provider, shown: found.shown };
}
