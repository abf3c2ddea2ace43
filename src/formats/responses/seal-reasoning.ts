import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { invalidRequest } from '../../core/errors.js';
import type { ProviderMetadata } from '../../core/provider-metadata.js';
import type { ReasoningPart } from '../../core/request.js';

/**
 * Marks payloads this router sealed, so an upstream's own encrypted content is told apart. The
 * version is in the prefix: `svcr2.` carries the part's providerMetadata and the model that wrote
 * it (`w`, absent from seals made before the router recorded it); `svcr1.` (earlier releases: a
 * signature, redacted data and the kind of upstream that made them) is still read, so a
 * conversation begun before an upgrade replays after it.
 */
const PREFIX = 'svcr2.';
const V1_PREFIX = 'svcr1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface SealedReasoning {
  t: string;
  m?: ProviderMetadata;
  /** The upstream model that wrote it: a model reads only some others' reasoning (src/catalog/reasoning-reads.ts). */
  w?: string;
}

/** What `svcr1.` held. */
interface SealedReasoningV1 {
  t: string;
  s?: string;
  r?: string;
  o?: 'anthropic' | 'openai';
}

const keyFor = (secret: string): Buffer => createHash('sha256').update(`svc-router reasoning seal\0${secret}`).digest();

/**
 * Seals what an upstream needs to see again (its namespace of the part's providerMetadata:
 * Anthropic's thinking signature, OpenAI's encrypted reasoning, …) and the model that wrote it into a Responses
 * `encrypted_content` with AES-256-GCM: the client replays it, cannot read or forge it, and the
 * router stores nothing.
 */
export function sealReasoning(part: ReasoningPart, secret: string): string {
  const payload: SealedReasoning = { t: part.text };
  if (part.providerMetadata && Object.keys(part.providerMetadata).length) payload.m = part.providerMetadata;
  if (part.writer) payload.w = part.writer;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

export const isSealedByUs = (value: unknown): value is string => typeof value === 'string' && (value.startsWith(PREFIX) || value.startsWith(V1_PREFIX));

/** Opens a sealed payload (either version); anything altered (or sealed under another secret) is a 400. */
export function unsealReasoning(value: string, secret: string, path: string): ReasoningPart {
  try {
    const v1 = value.startsWith(V1_PREFIX);
    const raw = Buffer.from(value.slice(v1 ? V1_PREFIX.length : PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secret), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    if (v1) return fromV1(JSON.parse(plain) as SealedReasoningV1);
    const payload = JSON.parse(plain) as SealedReasoning;
    return { type: 'reasoning', text: payload.t, ...(payload.m ? { providerMetadata: payload.m } : {}), ...(typeof payload.w === 'string' && payload.w ? { writer: payload.w } : {}) };
  } catch {
    throw invalidRequest(`${path}: the reasoning item's encrypted_content was altered or sealed by another router; replay it exactly as it was received.`, path, 'invalid_encrypted_content');
  }
}

/** A v1 payload in today's terms: what OpenAI encrypted is its own; anything else was Anthropic's. */
function fromV1(payload: SealedReasoningV1): ReasoningPart {
  const part: ReasoningPart = { type: 'reasoning', text: payload.t };
  if (payload.o === 'openai') {
    if (payload.r) part.providerMetadata = { openai: { encryptedContent: payload.r } };
  } else if (payload.s || payload.r) {
    part.providerMetadata = { anthropic: { ...(payload.s ? { signature: payload.s } : {}), ...(payload.r ? { redactedData: payload.r } : {}) } };
  }
  return part;
}
