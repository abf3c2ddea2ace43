import type { Policy } from './policy.js';
import { rateLimit } from './rate-limit.js';
import { requestBounds } from './request-bounds.js';
import { safetyVerdicts } from './safety-verdicts.js';
import { secretsGuardrail } from './secrets-guardrail.js';
import { sessionCap } from './session-cap.js';
import { usageCap } from './usage-cap.js';
import { usageNotices } from './usage-notices.js';

/**
 * Every per-request policy, in the order they run: cheapest refusal first, so a request refused
 * early costs no shared counter and no ledger write; the notices, which only tell, come last.
 * Adding one is a file in this folder and a line here (docs/architecture.md, "Adding a policy").
 */
export const POLICIES: readonly Policy[] = [
  requestBounds,
  rateLimit,
  secretsGuardrail,
  sessionCap,
  usageCap,
  // Refuses nothing: it answers auto mode's safety check on routes whose upstream does not.
  safetyVerdicts,
  usageNotices,
];
