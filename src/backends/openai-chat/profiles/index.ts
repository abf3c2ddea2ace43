import type { ChatProfileName } from '../../../core/chat-profiles.js';
import type { CanonicalRequest } from '../../../core/request.js';
import type { ChatRequestBody } from '../api.js';
import { deepseekProfile } from './deepseek.js';
import { groqProfile } from './groq.js';
import { mistralProfile } from './mistral.js';
import { openrouterProfile } from './openrouter.js';
import type { ChatBody, ChatProfile, ProfileSettings } from './profile.js';
import { xaiProfile } from './xai.js';

/** Every profile, by the name a backend's `profile` setting gives (src/core/chat-profiles.ts lists them). */
export const CHAT_PROFILES: Readonly<Record<ChatProfileName, ChatProfile>> = {
  openrouter: openrouterProfile,
  deepseek: deepseekProfile,
  groq: groqProfile,
  mistral: mistralProfile,
  xai: xaiProfile,
};

/**
 * The backend's profile applied to a body about to be sent, forwarded or built; what it left out
 * joins the backend's warnings (svc_meta.warnings), so a refused field never reaches the provider
 * and never goes unmentioned.
 */
export function applyChatProfile(body: ChatRequestBody, request: CanonicalRequest, settings: ProfileSettings): void {
  const { profile } = settings;
  if (!profile) return;
  const warnings: string[] = [];
  // A hand-edited config.json may name a profile this release does not have: said, not ignored.
  if (!Object.hasOwn(CHAT_PROFILES, profile)) warnings.push(`profile '${String(profile).slice(0, 40)}' not applied: the router knows ${Object.keys(CHAT_PROFILES).join(', ')}.`);
  else CHAT_PROFILES[profile].apply(body as unknown as ChatBody, { request, forwarded: request.forwardBody?.format === 'chat', warnings, settings });
  if (warnings.length) request.backendWarnings = [...new Set([...(request.backendWarnings ?? []), ...warnings])];
}
