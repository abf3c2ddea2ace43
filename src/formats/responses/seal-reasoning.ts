import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { invalidRequest } from '../../core/errors.js';
import type { ReasoningPart } from '../../core/request.js';

/** Marks payloads this router sealed, so an upstream's own encrypted content is told apart. */
const PREFIX = 'svcr1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface SealedReasoning {
  t: string;
  s?: string;
  r?: string;
  o?: ReasoningPart['origin'];
}

const keyFor = (secret: string): Buffer => createHash('sha256').update(`svc-router reasoning seal\0${secret}`).digest();

/**
 * Seals what an upstream needs to see again (Anthropic's thinking signature, OpenAI's encrypted
 * reasoning) into a Responses `encrypted_content` with AES-256-GCM: the client replays it, cannot
 * read or forge it, and the router stores nothing.
 */
export function sealReasoning(part: ReasoningPart, secret: string): string {
  const payload: SealedReasoning = { t: part.text };
  if (part.signature) payload.s = part.signature;
  if (part.redactedData) payload.r = part.redactedData;
  if (part.origin) payload.o = part.origin;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

export const isSealedByUs = (value: unknown): value is string => typeof value === 'string' && value.startsWith(PREFIX);

/** Opens a sealed payload; anything altered (or sealed under another secret) is a 400. */
export function unsealReasoning(value: string, secret: string, path: string): ReasoningPart {
  try {
    const raw = Buffer.from(value.slice(PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secret), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const payload = JSON.parse(plain) as SealedReasoning;
    return {
      type: 'reasoning',
      text: payload.t,
      ...(payload.s ? { signature: payload.s } : {}),
      ...(payload.r ? { redactedData: payload.r } : {}),
      ...(payload.o ? { origin: payload.o } : {}),
    };
  } catch {
    throw invalidRequest(`${path}: the reasoning item's encrypted_content was altered or sealed by another router; replay it exactly as it was received.`, path, 'invalid_encrypted_content');
  }
}
