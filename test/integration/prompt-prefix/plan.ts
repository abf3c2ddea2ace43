import fc from 'fast-check';

/**
 * A coding-agent session as a plan: what the client sends first, what the model answers on each
 * turn, and what the client adds after each answer (tool results, hook notes, new user text,
 * images, files). Each client driver (clients.ts) renders it in its own wire format; the fake
 * upstream answers from it. Every turn's request is the previous one plus the answer and the new
 * items, as agent clients build them.
 */

export const CLIENT_FORMATS = ['chat', 'responses', 'messages'] as const;
export type ClientFormat = (typeof CLIENT_FORMATS)[number];
export const UPSTREAM_TYPES = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const;
export type UpstreamType = (typeof UPSTREAM_TYPES)[number];

export interface ToolDef {
  name: string;
  description: string;
  /** JSON Schema as clients send it: `$schema`, `additionalProperties`, defaults, `$ref`s and all (Gemini's sanitiser rewrites them). */
  parameters: Record<string, unknown>;
}

export const TOOLS: ToolDef[] = [
  {
    name: 'run_shell',
    description: 'Runs a shell command in the workspace.',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        cmd: { type: 'string', description: 'The command line.' },
        timeout_ms: { type: ['integer', 'null'], default: 10_000, exclusiveMinimum: 0 },
        env: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['cmd'],
      additionalProperties: false,
    },
  },
  {
    name: 'edit_file',
    description: 'Replaces text in a file.',
    parameters: {
      type: 'object',
      $defs: { edit: { type: 'object', properties: { old: { type: 'string' }, new: { type: 'string' } }, required: ['old', 'new'] } },
      properties: { path: { type: 'string', format: 'uri-reference' }, edits: { type: 'array', items: { $ref: '#/$defs/edit' }, minItems: 1 } },
      required: ['path', 'edits'],
    },
  },
  {
    name: 'read_image',
    description: 'Reads an image file and shows it.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, mode: { const: 'full' } }, required: ['path'] },
  },
];

/** A 1x1 PNG, as the clients inline images. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** The smallest PDF header, enough for every route to pass it on inline. */
export const PDF_BASE64 = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64');

export interface CallPlan {
  tool: ToolDef['name'];
  args: Record<string, unknown>;
}

/** What the upstream model answers on one turn. */
export interface ReplyPlan {
  reasoning?: string;
  text?: string;
  calls: CallPlan[];
}

/** What the client sends after an answer, beyond replaying it. */
export interface FollowUp {
  /** One result per call the answer made; those flagged carry an image (a screenshot the tool read). */
  resultImages: boolean[];
  /** A hook's output, sent as a system (developer) message after the results, as Claude Code does. */
  hookNote?: string;
  /** New user input: always after an answer without calls, sometimes beside results. */
  user?: UserInput;
}

export interface UserInput {
  text: string;
  image: boolean;
  file?: 'pdf' | 'text';
}

export interface TurnPlan {
  stream: boolean;
  reply: ReplyPlan;
  next: FollowUp;
}

export interface SessionPlan {
  /** A second system block after the long one (systemBlocks). */
  systemExtra?: string;
  /** The session resumes one begun on another model, mid-loop: it opens with a tool call no upstream here made, and its result. */
  resumed: boolean;
  /** A system message after the first user message, before any answer (Claude Code's environment). */
  environment?: string;
  firstUser: UserInput;
  /** The tools offered, by name, in the session's own order. */
  tools: string[];
  turns: TurnPlan[];
  /** Chat and Responses clients: the prompt_cache_key the client sends, if any. */
  cacheKey?: string;
  /** Responses clients: ask for reasoning.encrypted_content (the router then seals reasoning). */
  includeEncrypted: boolean;
  /**
   * openai-chat upstreams: the model (only OpenAI's families get prompt_cache_key), or, for a
   * backend declared to take cache_control, OpenRouter's Claude, which caches only at breakpoints.
   */
  chatModel: 'gpt-4.1' | 'qwen3-coder';
  cacheControlBackend: boolean;
  /** Gemini: whether calls come back with Gemini's own ids, and whether thoughts are signed. */
  geminiCallIds: boolean;
  geminiSignThoughts: boolean;
}

/** About 6,000 tokens: above every provider's minimum for caching (Anthropic 1,024, OpenAI 1,024, Gemini 2.5 2,048). */
export const LONG_SYSTEM = 'You are a careful coding agent working in a repository. Follow the project rules. '.repeat(290);

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'é', '😀', '"quoted"', 'back\\slash', 'line\nbreak', '{json}', 'tab\t');
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));

const userInput: fc.Arbitrary<UserInput> = fc.record({ text, image: fc.boolean(), file: fc.option(fc.constantFrom<'pdf' | 'text'>('pdf', 'text'), { nil: undefined }) }, { requiredKeys: ['text', 'image'] });

const argsFor: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  run_shell: fc.record({ cmd: text, timeout_ms: fc.option(fc.nat({ max: 60_000 }), { nil: undefined }) }, { requiredKeys: ['cmd'] }),
  edit_file: fc.record({ path: fc.constantFrom('src/a.ts', 'README.md'), edits: fc.array(fc.record({ old: text, new: text }), { minLength: 1, maxLength: 2 }) }),
  read_image: fc.record({ path: fc.constantFrom('shot.png', 'diagram.png') }),
};

const call: fc.Arbitrary<CallPlan> = fc.constantFrom(...TOOLS.map((tool) => tool.name)).chain((tool) => argsFor[tool]!.map((args) => ({ tool, args })));

/** An answer with text, calls (parallel ones included) or both; reasoning sometimes. */
const reply: fc.Arbitrary<ReplyPlan> = fc
  .record({ reasoning: fc.option(text, { nil: undefined }), text: fc.option(text, { nil: undefined }), calls: fc.array(call, { maxLength: 3 }) })
  .map((plan) => (plan.text === undefined && plan.calls.length === 0 ? { ...plan, text: 'Done.' } : plan))
  .map(({ reasoning, text: answer, calls }) => ({ ...(reasoning !== undefined ? { reasoning } : {}), ...(answer !== undefined ? { text: answer } : {}), calls }));

const turn: fc.Arbitrary<TurnPlan> = fc
  .record({
    stream: fc.boolean(),
    reply,
    images: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    hookNote: fc.option(text.map((note) => `Hook: ${note}`), { nil: undefined }),
    user: fc.option(userInput, { nil: undefined }),
  })
  .map(({ stream, reply: answer, images, hookNote, user }) => ({
    stream,
    reply: answer,
    next: {
      resultImages: answer.calls.map((_, index) => images[index]!),
      ...(hookNote !== undefined ? { hookNote } : {}),
      // After an answer without calls the user speaks next.
      ...(user !== undefined || answer.calls.length === 0 ? { user: user ?? { text: 'Go on.', image: false } } : {}),
    },
  }));

export const sessionPlan: fc.Arbitrary<SessionPlan> = fc.record(
  {
    systemExtra: fc.option(text, { nil: undefined }),
    resumed: fc.boolean(),
    environment: fc.option(text.map((env) => `# Environment\n${env}`), { nil: undefined }),
    firstUser: userInput,
    // Every tool, in an order of the session's own.
    tools: fc.shuffledSubarray(TOOLS.map((tool) => tool.name), { minLength: TOOLS.length }),
    turns: fc.array(turn, { minLength: 2, maxLength: 4 }),
    cacheKey: fc.option(fc.constantFrom('session-1f2e', 'thread-9a'), { nil: undefined }),
    includeEncrypted: fc.boolean(),
    chatModel: fc.constantFrom<'gpt-4.1' | 'qwen3-coder'>('gpt-4.1', 'qwen3-coder'),
    cacheControlBackend: fc.boolean(),
    geminiCallIds: fc.boolean(),
    geminiSignThoughts: fc.boolean(),
  },
  { requiredKeys: ['resumed', 'firstUser', 'tools', 'turns', 'includeEncrypted', 'chatModel', 'cacheControlBackend', 'geminiCallIds', 'geminiSignThoughts'] },
);

/** The system prompt's blocks: the long one every session shares, then the session's own. */
export const systemBlocks = (plan: SessionPlan): string[] => (plan.systemExtra === undefined ? [LONG_SYSTEM] : [LONG_SYSTEM, plan.systemExtra]);

/** The exchange a resumed session opens with: a call another model made, and its result. */
export const PRIOR_CALL = { id: 'call_prior_0001', name: 'run_shell', arguments: '{"cmd":"ls"}', result: 'README.md src test' } as const;

/** The tools a session offers, in its order. */
export const toolsOf = (plan: SessionPlan): ToolDef[] => plan.tools.map((name) => TOOLS.find((tool) => tool.name === name)!);

/** What a tool answers, as text. */
export const resultText = (call: { name: string }, index: number): string => `result ${index} of ${call.name}: ok`;
