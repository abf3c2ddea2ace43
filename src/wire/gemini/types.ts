/**
 * The fields of Google's Gemini API (`models.generateContent`, `models.streamGenerateContent`) that
 * svc-router reads and writes, on both sides: the gemini client format (src/formats/gemini/)
 * decodes requests and writes replies in them, the gemini backend (src/backends/gemini/) writes
 * requests and reads replies. Shapes follow the REST reference:
 * https://ai.google.dev/api/generate-content and https://ai.google.dev/api/caching#Content.
 */

// ---- Request -------------------------------------------------------------------------------

export interface GeminiFunctionCall {
  name: string;
  /** The arguments as a JSON object (not a string, unlike OpenAI's). */
  args?: Record<string, unknown>;
  /** Set by newer API versions; echoed back on the matching functionResponse. */
  id?: string;
}

export interface GeminiFunctionResponse {
  name: string;
  /** A JSON object; `output` holds the function's output and `error` its failure. */
  response: Record<string, unknown>;
  id?: string;
}

/** One part of a turn: exactly one of the data fields, plus the optional thought markers. */
export interface GeminiPart {
  text?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  /** The part is a thought summary, not the answer. */
  thought?: boolean;
  /** Opaque proof of the model's reasoning at this part; must go back on the same part. */
  thoughtSignature?: string;
}

/** A part of an answer as read: the fields above, or the name of a kind no client format carries. */
export interface GeminiReplyPart extends GeminiPart {
  /** `inlineData`, `executableCode`, … when the part is of a kind the decoders do not translate. */
  other?: string;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** The OpenAPI 3.0 subset Gemini's Schema accepts (see sanitize-schema.ts). */
  parameters?: Record<string, unknown>;
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  /** Function declarations, and Google Search grounding (`googleSearch`): https://ai.google.dev/gemini-api/docs/google-search */
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] } | { googleSearch: Record<string, never> }>;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    topP?: number;
    topK?: number;
    stopSequences?: string[];
    seed?: number;
    presencePenalty?: number;
    frequencyPenalty?: number;
    responseMimeType?: string;
    responseSchema?: Record<string, unknown>;
    /** A budget (2.5) or a level (3): https://ai.google.dev/gemini-api/docs/thinking */
    thinkingConfig?: { thinkingBudget?: number; thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high'; includeThoughts?: boolean };
  };
}

// ---- Response ------------------------------------------------------------------------------

export interface GeminiUsageMetadata {
  /** The whole prompt, cached part included. */
  promptTokenCount?: number;
  /** The answer, thoughts not included. */
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  /** Prompt tokens spent on tool use (search results and the like), billed as input. */
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiReplyPart[] };
  /** Absent until the candidate is finished (so on every streamed chunk but the last). */
  finishReason?: string;
  /** Why it stopped, in words, where finishReason alone does not say it (a model's refusal, explained). */
  finishMessage?: string;
  /** What Google Search grounding found and where the answer relies on it; read by web-search.ts. */
  groundingMetadata?: Record<string, unknown>;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  responseId?: string;
  modelVersion?: string;
}

/** A Gemini error body: `{"error": {"code", "message", "status"}}` (google.rpc.Status). */
export interface GeminiError {
  code?: number;
  message?: string;
  status?: string;
}
