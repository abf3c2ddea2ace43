/**
 * Every backend type a config may name, in the order help and completions list them. Each has a
 * folder under src/backends/ and a loader in src/backends/registry.ts, which the compiler keeps to
 * exactly these; the `BackendType` union, settings validation, `backends add --type`, the
 * completion scripts and the CLI reference derive from this list. Kept here, below config, so that the
 * settings name a type without loading any backend.
 */
export const BACKEND_TYPES = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'vertex', 'bedrock'] as const;

export type BackendType = (typeof BACKEND_TYPES)[number];

/** Whether a string (from a config file or the command line) names a backend type; `constructor` and the like do not. */
export const isBackendType = (type: unknown): type is BackendType => typeof type === 'string' && (BACKEND_TYPES as readonly string[]).includes(type);
