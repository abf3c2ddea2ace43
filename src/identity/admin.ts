import type { Settings } from '../config/settings.js';
import { RouterError } from '../core/errors.js';
import type { Identity } from './identity.js';
import { slugOfKey } from '../core/router-keys.js';

/** The tier that makes any key an admin key (`svc-router keys issue --developer ops --tier admin`). */
const ADMIN_TIER = 'admin';

/**
 * Whether a caller may see everyone's usage, the request log and the dashboard: the owner of the
 * local key (the one `init` issued to whoever runs the router), or any key issued with the admin tier.
 */
function isAdmin(settings: Settings, identity: Identity): boolean {
  if (identity.tier === ADMIN_TIER) return true;
  return settings.localKey !== undefined && slugOfKey(settings.localKey) === identity.developer;
}

export function requireAdmin(settings: Settings, identity: Identity): void {
  if (!isAdmin(settings, identity)) {
    throw new RouterError(
      403,
      'permission',
      `This needs an admin key: the local key, or a key issued with --tier ${ADMIN_TIER}. The key of ${identity.developer} (tier ${identity.tier}) can see its own usage at GET /whoami.`,
      undefined,
      'admin_key_required',
    );
  }
}
