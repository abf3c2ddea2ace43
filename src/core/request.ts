import type { ProviderMetadata } from './provider-metadata.js';
import type { Citation, WebSearchPart, WebSearchSpec } from './web-search.js';

/**
 * The canonical request: what every client format decodes into and every backend encodes from.
 * Nothing here knows a wire format. Every part may carry `providerMetadata`: data one provider
 * needs back (a signature, a cache_control, a citation), read only by that provider's translators.
 */

export interface TextPart {
  type: 'text';
  text: string;
  /** Sources the text relies on (web search citations), in the canonical form every format maps. */
  citations?: Citation[];
  providerMetadata?: ProviderMetadata;
}

export interface ImagePart {
  type: 'image';
  /** An http(s) URL or a data: URL; passed to the upstream as it is, never fetched here. */
  url: string;
  mediaType?: string;
  /** How closely the model should look (OpenAI's `detail`); upstreams without the setting say so in warnings. */
  detail?: 'low' | 'high' | 'auto' | 'original';
  providerMetadata?: ProviderMetadata;
}

/**
 * Where a file's bytes are: inline (base64), plain text (a document given as text), a URL the
 * upstream fetches, or a file id one provider issued, which only that provider can resolve.
 */
export type FileSource =
  | { kind: 'base64'; data: string }
  | { kind: 'text'; text: string }
  | { kind: 'url'; url: string }
  | { kind: 'file-id'; id: string; provider: 'openai' | 'anthropic' | (string & {}) };

/** A document or other file a client attached (a PDF, a text file). Never fetched or stored here. */
export interface FilePart {
  type: 'file';
  source: FileSource;
  /** IANA media type, when the client said or it can be told (`application/pdf`, `text/plain`). */
  mediaType?: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
  providerMetadata?: ProviderMetadata;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  content: Array<TextPart | ImagePart>;
  isError?: boolean;
  /**
   * Deferred tools this result loaded (a tool search's answer: Anthropic `tool_reference` blocks);
   * `content` says so in words. See core/tool-search.ts.
   */
  loadsTools?: string[];
  providerMetadata?: ProviderMetadata;
}

export interface ReasoningPart {
  type: 'reasoning';
  /** The readable reasoning or its summary; empty when the upstream returned it only sealed. */
  text: string;
  /**
   * What the upstream that made it needs to see it again: `anthropic.signature` /
   * `anthropic.redactedData`, `openai.encryptedContent` / `openai.itemId`, `gemini.thoughtSignature`.
   * A backend replays reasoning only when its own namespace holds what it needs.
   */
  providerMetadata?: ProviderMetadata;
  /**
   * The upstream model that wrote it, when the router knows (it sealed the blob, or the session's
   * history says): a model reads only some others' reasoning (src/catalog/reasoning-reads.ts).
   */
  writer?: string;
}

export type Part = TextPart | ImagePart | FilePart | ToolCallPart | ToolResultPart | ReasoningPart | WebSearchPart;

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
  /** Declared for tool search (`defer_loading`): sent upstream only once a tool result loaded it. */
  deferred?: true;
}

/** One part or setting only a same-format upstream can take; `message` says what and why, for the 400 or the warning. */
export interface SameFormatOnly {
  param: string;
  message: string;
  /** true: the request is refused on a translating route (dropping it would change what the model sees); false: a warning. */
  refuse: boolean;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * How hard a model should reason, on the whole scale the providers name, lowest first: OpenAI's
 * none…xhigh (https://platform.openai.com/docs/api-reference/responses/create#responses-create-reasoning)
 * and Anthropic's low…max (https://platform.claude.com/docs/en/build-with-claude/effort). Each
 * backend sends the level its model takes, or the nearest one, named in a warning (src/catalog/effort.ts).
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * The client wire formats by name: a backend names the one its upstream speaks (`wireFormat`), a
 * decoded request the one its forwardBody is in. Each format's folder adds its own name here, by
 * declaration merging (`declare module '../../core/request.js' { interface FormatNames { chat: true } }`
 * beside its descriptor), so adding a format touches nothing here; src/formats/registry.ts lists
 * a format for each name, and the compiler holds the two equal.
 */
export interface FormatNames {}

export type FormatName = keyof FormatNames & string;

/** A client's body kept for an upstream of its own format, with the client headers sent along as they are. */
export interface ForwardBody {
  format: FormatName;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /**
   * Blocks of the body that hold reasoning another provider made, which the router sealed for the
   * client to replay (a Messages thinking block whose signature it sealed): where each is, its
   * visible text, and who wrote it. Their own format's upstream gets the body with these rewritten.
   */
  foreignReasoning?: ForeignReasoningBlock[];
}

/** One sealed block of a forwarded body: `messages[message].content[block]`. */
export interface ForeignReasoningBlock {
  message: number;
  block: number;
  text: string;
  writer?: string;
}

export interface CanonicalRequest {
  /** The model name the client asked for (an svc.* SKU or a claude-* id). */
  model: string;
  /** System instructions; later `system` messages inside `messages` are kept in place. */
  system: TextPart[];
  messages: Message[];
  /** The tools every translating upstream gets: those not deferred, then the deferred ones loaded so far. */
  tools: ToolSpec[];
  /** Deferred tools no tool result has loaded yet: held back from a translating upstream (core/tool-search.ts). */
  deferredTools?: ToolSpec[];
  /** The client offered web search (core/web-search.ts): an upstream with its own runs it, else the route's search target. */
  webSearch?: WebSearchSpec;
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  /** Sample only from the top K options (Anthropic, Gemini); OpenAI has no such setting. */
  topK?: number;
  stop?: string[];
  reasoningEffort?: ReasoningEffort;
  /** Thinking budget in tokens when the client asked for one explicitly. */
  reasoningBudget?: number;
  /** How the client wants reasoning shown: as readable summaries, or omitted (only the sealed form comes back). */
  reasoningDisplay?: 'summarized' | 'omitted';
  metadata?: Record<string, string>;
  /** Structured output: the reply must be JSON matching this schema. */
  outputSchema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  /** JSON mode with no schema (OpenAI's `json_object`): the reply must be one JSON object. */
  jsonObject?: boolean;
  /** Sampling seed, for repeatable answers where the upstream supports it. */
  seed?: number;
  /**
   * The client session the body names, where its format has a place for one (Anthropic's
   * `metadata.user_id`, where Claude Code writes its session id) or, for a format whose clients
   * name none (Gemini's), the conversation's opening: what session affinity and the derived
   * prompt-cache key are kept under when no header names a session (src/routing/session-key.ts).
   */
  sessionName?: string;
  /** A key that groups requests sharing a prompt prefix (one client session), for the upstream's prompt cache (OpenAI's `prompt_cache_key`). */
  promptCacheKey?: string;
  /** How long the upstream keeps that prompt cached (OpenAI's `prompt_cache_retention`). */
  promptCacheRetention?: 'in_memory' | '24h';
  /**
   * OpenAI's `prompt_cache_options` (GPT-5.6 and later): whether the upstream places its own
   * breakpoint besides the client's (`prompt_cache_breakpoint` on a part, held as
   * `providerMetadata.openai.promptCacheBreakpoint`), the breakpoints' lifetime, and the earlier
   * response to compare this one's cache reuse with (diagnostics, Responses only).
   */
  promptCacheOptions?: { mode?: string; ttl?: string; comparisonResponseId?: string };
  /**
   * The client asked that a request the model declines (a refusal) be answered by a fallback model
   * (Anthropic's `fallbacks`): an upstream that takes server-side fallback gets it, and on any
   * other route a refusal moves to the route's next target.
   */
  fallbacks?: 'default';
  /** OpenAI-style penalties, -2 to 2. */
  frequencyPenalty?: number;
  presencePenalty?: number;
  /**
   * Parts and settings the client sent that only an upstream of the client's own format can take
   * (they reach it in `forwardBody`). A backend that translates the request refuses it with
   * a 400 at the first `refuse` entry, naming its `param`, and lists the rest in its warnings.
   * See core/same-format-only.ts.
   */
  sameFormatOnly?: SameFormatOnly[];
  /**
   * The client's own body, for a backend that speaks the same wire format: it forwards this with
   * the model renamed, so fields the canonical form does not model still reach the upstream.
   * Set by the decoder with keepForwardBody() (core/forwarded.ts).
   */
  forwardBody?: ForwardBody;
  /**
   * Settings or parts that were not honoured as asked (decoding), surfaced in `svc_meta.warnings`.
   * See core/warnings.ts for how backends add theirs.
   */
  warnings?: string[];
  /** What the backend that last encoded this request could not honour; replaced on each encoding. */
  backendWarnings?: string[];
  /** Reasoning the last encoding did not replay because its model cannot read it: how much, and who wrote it (the sessions view). */
  unreadReasoning?: { blocks: number; writers: string[] };
  /** Request-level data only one provider's encoder reads (see core/provider-metadata.ts). */
  providerMetadata?: ProviderMetadata;
}
