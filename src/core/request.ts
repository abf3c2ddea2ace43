/**
 * The canonical request: what every client format decodes into and every backend encodes from.
 * Nothing here knows a wire format.
 */

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image';
  /** An http(s) URL or a data: URL; passed to the upstream as it is, never fetched here. */
  url: string;
  mediaType?: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  content: Array<TextPart | ImagePart>;
  isError?: boolean;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Upstream proof that the reasoning is genuine (Anthropic thinking signature). */
  signature?: string;
  /** Reasoning the upstream returned only in encrypted form (Anthropic redacted_thinking, OpenAI encrypted_content). */
  redactedData?: string;
  /** Which kind of upstream made the signature or encrypted data; only that kind can verify it. */
  origin?: 'anthropic' | 'openai';
}

export type Part = TextPart | ImagePart | ToolCallPart | ToolResultPart | ReasoningPart;

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface Message {
  role: Role;
  content: Part[];
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export interface CanonicalRequest {
  /** The model name the client asked for (an svc.* SKU or a claude-* id). */
  model: string;
  /** System instructions; later `system` messages inside `messages` are kept in place. */
  system: TextPart[];
  messages: Message[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  reasoningEffort?: ReasoningEffort;
  /** Thinking budget in tokens when the client asked for one explicitly. */
  reasoningBudget?: number;
  metadata?: Record<string, string>;
  /** Structured output: the reply must be JSON matching this schema. */
  outputSchema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  /**
   * The client's own body, for a backend that speaks the same wire format: it forwards this with
   * the model renamed, so fields the canonical form does not model still reach the upstream.
   */
  passthrough?: { format: 'chat' | 'messages' | 'responses'; body: Record<string, unknown>; headers?: Record<string, string> };
}
