/** The shape of the stored configuration (config.json under the svc-router home). */

import { randomBytes } from 'node:crypto';

export const BACKEND_TYPES = ['openai-chat', 'openai-responses', 'anthropic'] as const;
export type BackendType = (typeof BACKEND_TYPES)[number];

export interface BackendSettings {
  type: BackendType;
  baseUrl: string;
  /** Stored in the 0600 config file; never printed, logged or returned. */
  apiKey?: string;
  /** Name of an environment variable that holds the key, read when the backend is called. */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  timeouts?: BackendTimeouts;
}

/** Per-backend limits on waiting for the upstream, in milliseconds. */
export interface BackendTimeouts {
  /** To open the TCP/TLS connection. */
  connectMs?: number;
  /** From sending the request to the response headers. */
  firstByteMs?: number;
  /** Between two chunks of a body, streamed or not. */
  idleMs?: number;
  /**
   * A non-streamed call as a whole: from sending the request to the last byte of the answer,
   * connecting included (each attempt on its own). A stream is bounded by it only until its
   * headers: an answer may stream for as long as chunks keep coming, and the idle timeout bounds it.
   */
  totalMs?: number;
}

export const DEFAULT_TIMEOUTS: Required<BackendTimeouts> = { connectMs: 10_000, firstByteMs: 300_000, idleMs: 120_000, totalMs: 600_000 };

/** An issued key: only its hash is kept, with the identity it stands for. */
export interface KeyRecord {
  developer: string;
  organisation: string;
  tier: string;
  capTokens: number;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** The key's first characters, so a listing can tell keys apart without revealing them. */
  hint: string;
  createdAt: string;
}

export interface Settings {
  /** The local developer's own key, so the CLI can call the router (file mode 0600). */
  localKey?: string;
  /** Secret for sealing payloads that clients replay (created by init). */
  secret?: string;
  keys: Record<string, KeyRecord>;
  backends: Record<string, BackendSettings>;
  /** Model name or pattern → ordered targets `BACKEND[:UPSTREAM_MODEL]` (fallback order). */
  routes: Record<string, string[]>;
  /** `metrics`: serve GET /metrics (read when serve starts; serve --metrics turns it on too). */
  server: { host: string; port: number; bodyLimitBytes: number; metrics: boolean };
  usage: { store: string };
  defaults: { organisation: string; tier: string; capTokens: number };
}

export const DEFAULT_SETTINGS: Settings = {
  keys: {},
  backends: {},
  routes: {},
  server: { host: '127.0.0.1', port: 8787, bodyLimitBytes: 20 * 1024 * 1024, metrics: false },
  usage: { store: 'file' },
  defaults: { organisation: 'personal', tier: 'standard', capTokens: 5_000_000 },
};

/** Fills what a stored file leaves out, so readers never see a partial shape. */
export function withDefaults(stored: Partial<Settings>): Settings {
  return {
    ...stored,
    keys: stored.keys ?? {},
    backends: stored.backends ?? {},
    routes: stored.routes ?? {},
    server: { ...DEFAULT_SETTINGS.server, ...stored.server },
    usage: { ...DEFAULT_SETTINGS.usage, ...stored.usage },
    defaults: { ...DEFAULT_SETTINGS.defaults, ...stored.defaults },
  };
}

/** A fresh secret for sealing replayed reasoning (256 bits). */
export const newSealingSecret = (): string => randomBytes(32).toString('base64url');
