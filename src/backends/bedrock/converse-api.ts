/**
 * The parts of Bedrock's Converse API this backend writes and reads
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html). Blobs
 * (image and document bytes) travel as base64 strings in the REST JSON body.
 */

export type ConverseContentBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } } }
  | { document: { format: string; name: string; source: { bytes: string } | { text: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: ConverseToolResultContent[]; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: string } };

export type ConverseToolResultContent = { text: string } | { json: unknown } | { image: { format: string; source: { bytes: string } } };

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: Array<{ text: string }>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: {
    tools: Array<{ toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } } }>;
    toolChoice?: { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };
  };
  additionalModelRequestFields?: Record<string, unknown>;
}

/** TokenUsage (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html). */
export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}
