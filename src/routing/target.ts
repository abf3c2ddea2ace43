// Route targets moved to src/core/target.ts, below config validation that parses them too.
export { parseTarget, type Target } from '../core/target.js';
