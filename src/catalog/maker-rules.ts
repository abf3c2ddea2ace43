/**
 * Rules that hold for every model of one maker, those the capability rows name and those newer
 * than the rows alike, by the maker's model names. OpenAI's `prompt_cache_key` and
 * `prompt_cache_retention` (https://platform.openai.com/docs/guides/prompt-caching) are hints its
 * own models take; compatible servers of other makers' models (Mistral, Groq) refuse fields they
 * do not know.
 */
interface MakerRule {
  maker: string;
  family: RegExp;
  /** Takes `prompt_cache_key` and `prompt_cache_retention` on Chat Completions. */
  promptCacheKey: boolean;
}

const MAKER_RULES: readonly MakerRule[] = [{ maker: 'openai', family: /^(?:o\d|gpt-|chatgpt-)/i, promptCacheKey: true }];

/** The model as its maker names it: without a host's `vendor/` prefix (OpenRouter's `openai/gpt-5`). */
const bare = (model: string): string => model.replace(/^[\w.-]+\//, '');

/** Whether an upstream model takes OpenAI's prompt-cache key and retention. */
export const takesPromptCacheKey = (model: string): boolean => MAKER_RULES.some((rule) => rule.promptCacheKey && rule.family.test(bare(model)));
