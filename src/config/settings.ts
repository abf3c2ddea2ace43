/** The shape of the stored configuration (config.json under the svc-router home). */

import { randomBytes } from 'node:crypto';
import type { BackendType } from '../backends/registry.js';

/** The backend types are those src/backends/registry.ts lists (BACKEND_TYPES there). */
export type { BackendType };

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

/** How serve listens, and what it allows clients. */
export interface ServerSettings {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** Serve GET /metrics (read when serve starts; serve --metrics turns it on too). */
  metrics: boolean;
  /** From a request's headers to the end of its body; past it, 408 and the connection is closed (read when serve starts). */
  bodyTimeoutMs: number;
  /** From a connection's first byte (or a kept-alive request's) to the end of its headers; Node answers 408 past it (read when serve starts). */
  headersTimeoutMs: number;
  /** Open client connections; one more is answered 503 and closed (read when serve starts). */
  maxConnections: number;
  /** Serve the dashboard at /ui (read when serve starts; serve --ui turns it on too). */
  ui: boolean;
  /** Days the searchable request log (`svc-router logs`) keeps a request. */
  requestLogDays: number;
  /** Bytes the searchable request log may take on disk, both generations together. */
  requestLogMaxBytes: number;
  /** Serve HTTPS with this PEM certificate (chain) and private key, given as file paths (read when serve starts). */
  tls?: TlsFiles;
}

/** Paths of a PEM certificate (its chain after it) and its private key. */
export interface TlsFiles {
  cert: string;
  key: string;
}

/**
 * What an upstream model costs, in US dollars per million tokens. Input tokens read from or written
 * to the provider's prompt cache are priced on their own; a price left out means "not known", and a
 * request that used such tokens gets no cost at all rather than a wrong one.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** A higher rate for the whole request once its input passes a size (Gemini 2.5 Pro, Claude Sonnet's long context). */
  longContext?: { aboveInputTokens: number; input: number; output: number; cacheRead?: number; cacheWrite?: number };
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
  server: ServerSettings;
  usage: { store: string };
  /**
   * Prices by upstream model name (`gpt-4.1`) or by `BACKEND:MODEL`, over the shipped defaults
   * (src/usage/default-prices.ts); src/usage/prices.ts reads them.
   */
  prices: Record<string, ModelPrice>;
  defaults: { organisation: string; tier: string; capTokens: number };
}

export const DEFAULT_SETTINGS: Settings = {
  keys: {},
  backends: {},
  routes: {},
  server: {
    host: '127.0.0.1',
    port: 8787,
    bodyLimitBytes: 20 * 1024 * 1024,
    metrics: false,
    // A 20 MiB body needs about 3 Mbit/s to arrive in time; a JSON prompt on loopback takes milliseconds.
    bodyTimeoutMs: 60_000,
    headersTimeoutMs: 60_000,
    // Far beyond what a team's agents hold open (a few kept-alive sockets each). Each connection is a file
    // descriptor, and a request may hold an upstream socket too: keep `ulimit -n` above twice this.
    maxConnections: 1024,
    ui: false,
    requestLogDays: 7,
    requestLogMaxBytes: 50 * 1024 * 1024,
  },
  usage: { store: 'file' },
  prices: {},
  // Sized for coding agents: one `claude -p "say hi"` sends ~18,000 input tokens and a working
  // session's calls average 40,000–60,000 as context grows, so 200M / 30 days (~6.7M a day) is
  // 110–170 agent calls every day, while a runaway loop still meets the cap within hours.
  defaults: { organisation: 'personal', tier: 'standard', capTokens: 200_000_000 },
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
    prices: stored.prices ?? {},
    defaults: { ...DEFAULT_SETTINGS.defaults, ...stored.defaults },
  };
}

/** A fresh secret for sealing replayed reasoning (256 bits). */
export const newSealingSecret = (): string => randomBytes(32).toString('base64url');
