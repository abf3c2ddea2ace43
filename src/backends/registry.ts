import type { BackendEntry } from './backend.js';

/**
 * Every backend type a config may name, in the order help and completions list them. Adding a
 * type is one folder whose module exports `createBackend`, and one line here; the `BackendType`
 * union, settings validation, `backends add --type`, the completion scripts and the README derive
 * from it. A type's module is imported on first use only (src/backends/backend-registry.ts), so
 * this list costs the CLI nothing.
 */
export const BACKENDS = [
  { type: 'openai-chat', load: () => import('./openai-chat/openai-chat-backend.js') },
  { type: 'openai-responses', load: () => import('./openai-responses/openai-responses-backend.js') },
  { type: 'anthropic', load: () => import('./anthropic/anthropic-backend.js') },
  { type: 'gemini', load: () => import('./gemini/gemini-backend.js') },
] as const satisfies readonly BackendEntry[];

export type BackendType = (typeof BACKENDS)[number]['type'];

export const BACKEND_TYPES: readonly BackendType[] = BACKENDS.map((backend) => backend.type);

/** Keyed by type for lookups; a type read from a config file is looked up as an own entry only. */
export const LOADERS: Readonly<Record<string, BackendEntry['load']>> = Object.fromEntries(BACKENDS.map((backend) => [backend.type, backend.load]));

/** Whether a string (from a config file or the command line) names a backend type. */
export const isBackendType = (type: unknown): type is BackendType => typeof type === 'string' && Object.hasOwn(LOADERS, type);
