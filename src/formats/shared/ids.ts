import { randomBytes } from 'node:crypto';

/** Distinguishes this process's ids from every other router's; the counter makes them unique here. */
const PROCESS_TAG = randomBytes(6).toString('hex');
let counter = 0;

/**
 * A fresh id in the style of the format it appears in (`chatcmpl-…`, `msg_…`, `resp_…`). Ids only
 * need to be unique, not secret, so a counter replaces a random draw on every request's hot path.
 */
export const newId = (prefix: string): string => `${prefix}${PROCESS_TAG}${(counter++).toString(16).padStart(12, '0')}`;
