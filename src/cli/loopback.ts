/** The CLI's name for the check the server makes too (src/core/host-names.ts). */
export { isLoopbackHost } from '../core/host-names.js';
