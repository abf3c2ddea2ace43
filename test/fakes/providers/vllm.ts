import type { ProviderRules } from './chat-provider-server.js';

/**
 * vLLM with a reasoning parser (https://docs.vllm.ai/en/latest/features/reasoning_outputs.html):
 * reasoning comes as `reasoning_content` (newer releases: `reasoning`) beside the content, streamed
 * the same way; Qwen's servers do as vLLM. Nothing about reasoning is required back.
 */
export const vllmRules = (field: 'reasoning_content' | 'reasoning'): ProviderRules => ({
  name: `vllm-${field}`,
  refuse: () => undefined,
  reasoning: (n) => ({ [field]: `qwen thought ${n}` }),
  reasoningDeltas: (n) => [{ [field]: 'qwen ' }, { [field]: `thought ${n}` }],
});
