/** The model catalog: what is known of each upstream model, and where each value came from. */
export { fromOverride, rateAt, type CatalogPrice, type PriceOverride, type Rate } from './catalog-price.js';
export { mapEffort, type MappedEffort } from './effort.js';
export { CAPABILITY_ROWS, type Capabilities, type ReasoningForm, type ReasoningReads, type SamplingSetting } from './model-capabilities.js';
export { capabilitiesOf, modelInfo, type CatalogOverrides, type ModelInfo, type ModelQuery, type Sourced } from './model-info.js';
export { PRICE_PACKAGE_SOURCE, packagePriceList, priceProviderKey, type PriceProvider } from './price-package.js';
export { unsentSampling, type UnsentSampling } from './sampling.js';
export { foreignReasoningWarning, readsReasoningOf, reasoningFor, replayableMessages, unreadReasoningWarning, type ReasoningReplay } from './reasoning-reads.js';
export { takesPromptCacheKey } from './maker-rules.js';
export { breakpointOf, breakpointsIn, cacheControlsTaken, forwardedWithoutCacheControls, promptCacheOptionsFor, unsentCacheControls, type CacheControlsTaken } from './prompt-cache-controls.js';
