// The model names moved to src/core/model-names.ts, below config validation that reads them too.
export { SKUS } from '../core/model-names.js';
export { OFFLINE_BACKEND } from '../core/target.js';
