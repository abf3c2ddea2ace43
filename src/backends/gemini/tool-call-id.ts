import { randomBytes } from 'node:crypto';

/**
 * What a Gemini function call needs back on the next turn, carried inside the tool-call id every
 * client format replays: the part's `thoughtSignature` (Gemini 3 refuses a replayed call without
 * it: https://ai.google.dev/gemini-api/docs/thought-signatures) and the call's own `id`, which
 * newer API versions set and expect again on the functionResponse. The router keeps no state, so
 * the id is where these live between turns.
 *
 * Shape: `call_<16 letters or digits>` alone, or followed by `_<base64url JSON>` when there is
 * something to carry. Only letters, digits, `_` and `-`, which every client format (and Anthropic's
 * tool_use id pattern) accepts.
 */
export interface CarriedCall {
  /** Gemini's own functionCall.id, when it gave one. */
  upstreamId?: string;
  thoughtSignature?: string;
}

const PREFIX = 'call_';
const NONCE_CHARS = 16;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SHAPE = /^call_[A-Za-z0-9]{16}_([A-Za-z0-9_-]+)$/;

interface Payload {
  i?: string;
  s?: string;
}

const nonce = (): string => Array.from(randomBytes(NONCE_CHARS), (byte) => ALPHABET[byte % ALPHABET.length]).join('');

/** A fresh, unique id for a call Gemini made, carrying what the next turn must send back. */
export function toolCallId(carried: CarriedCall = {}): string {
  const payload: Payload = {};
  if (carried.upstreamId) payload.i = carried.upstreamId;
  if (carried.thoughtSignature) payload.s = carried.thoughtSignature;
  const id = PREFIX + nonce();
  return payload.i === undefined && payload.s === undefined ? id : `${id}_${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
}

/** What an id made by toolCallId carries; nothing for any other id (a client's, another upstream's). */
export function readToolCallId(id: string): CarriedCall {
  const match = SHAPE.exec(id);
  if (!match) return {};
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8'));
  } catch {
    return {};
  }
  if (typeof payload !== 'object' || payload === null) return {};
  const { i, s } = payload as Record<string, unknown>;
  return { ...(typeof i === 'string' && i ? { upstreamId: i } : {}), ...(typeof s === 'string' && s ? { thoughtSignature: s } : {}) };
}
