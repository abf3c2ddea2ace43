/**
 * Why only an openai-chat backend takes `cacheControl`: the other types' upstreams either take
 * Anthropic's breakpoints natively or cache prompts by prefix without any.
 */
export function cacheControlElsewhere(type: unknown): string {
  if (type === 'anthropic') return "an anthropic upstream gets a client's breakpoints as they are, and the router's for clients that set none";
  const name = String(type);
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name} upstream caches prompts without breakpoints`;
}
