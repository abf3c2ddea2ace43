import { editDistance } from './closest.js';
import { isSkuName, SKUS } from './model-names.js';

/** How far a name may be from a built-in SKU and still be taken for a typo of it. */
const TYPO_EDITS = 2;

/**
 * The built-in SKU a new name is a near miss of: the same but for case, or within two edits
 * (`svc.inteligent-basic`, `svc.intelligent-lite2`). A route under such a name is almost always a
 * typo, and it is worse than none: clients asking for the real SKU never reach it, and the SKU
 * list grows a model nobody meant. Refused wherever a route is named (the CLI and the
 * declarative file), so a new SKU needs a name clearly its own.
 */
export function skuTypoOf(name: string): string | undefined {
  if (!isSkuName(name) || (SKUS as readonly string[]).includes(name)) return undefined;
  const lower = name.toLowerCase();
  return SKUS.find((sku) => editDistance(lower, sku) <= TYPO_EDITS);
}
