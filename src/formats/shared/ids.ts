import { randomBytes } from 'node:crypto';

/** A fresh id in the style of the format it appears in (`chatcmpl-…`, `msg_…`, `resp_…`). */
export const newId = (prefix: string): string => prefix + randomBytes(12).toString('hex');
