import { CREDENTIAL_SHAPES } from '../core/credential-shapes.js';
import { keyHint } from '../core/router-keys.js';

/** Every credential shape the router knows (src/core/credential-shapes.ts), in one pattern. */
const SHAPES = new RegExp(CREDENTIAL_SHAPES.map((shape) => `(?:${shape.pattern})`).join('|'), 'g');
const SVC_KEY = new RegExp(`^(?:${CREDENTIAL_SHAPES.find((shape) => shape.kind === 'svc-key')!.pattern})$`);

/** What a terminal may show of a credential: a router key's hint (its slug and four characters), else four characters. */
const hintOf = (credential: string): string => (SVC_KEY.test(credential) ? keyHint(credential) : `${credential.slice(0, 4)}…`);

/**
 * A line of a client's config file as `connect` prints it: `key` (whatever its shape) and anything
 * shaped like a credential shown only as a hint. The diff says what changed; the file holds the value.
 */
export function maskKeys(line: string, key?: string): string {
  // The hint is left alone: a loose shape (`svc_` and a digit) would take it for a key.
  return (key ? line.split(key) : [line]).map((part) => part.replace(SHAPES, hintOf)).join(key ? hintOf(key) : '');
}
