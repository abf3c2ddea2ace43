import type { RateLimitSettings } from '../config/settings.js';

/** Who is calling, as established from their key. */
export interface Identity {
  developer: string;
  organisation: string;
  tier: string;
  capTokens: number;
  /** Per-minute limits on this key, when it has any. */
  rateLimit?: RateLimitSettings;
}
