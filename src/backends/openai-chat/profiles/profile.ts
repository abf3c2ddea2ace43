import type { ChatProfileName } from '../../../core/chat-profiles.js';
import type { CanonicalRequest, Message } from '../../../core/request.js';

/** A Chat body as a profile edits it: any field, since profiles add and remove provider-only ones. */
export type ChatBody = Record<string, unknown> & { model: string; messages?: unknown };

/** The backend settings profiles read. */
export interface ProfileSettings {
  profile?: ChatProfileName;
  providerRouting?: Record<string, unknown>;
}

export interface ChatProfileContext {
  settings: ProfileSettings;
  request: CanonicalRequest;
  /** The body is the client's own Chat request, forwarded (its assistant messages are the client's). */
  forwarded: boolean;
  /** What was left out or changed, for svc_meta.warnings. */
  warnings: string[];
}

/** What one provider needs of a Chat body beyond what every compatible server takes. */
export interface ChatProfile {
  name: ChatProfileName;
  /** The provider's documentation this profile follows. */
  doc: string;
  /** Edits the body in place, just before it is sent. */
  apply(body: ChatBody, context: ChatProfileContext): void;
}

/** Removes each field the provider refuses, with a warning naming it; `why` says whose rule. */
export function dropRefused(body: ChatBody, fields: readonly string[], why: string, warnings: string[]): void {
  for (const field of fields) {
    if (!Object.hasOwn(body, field) || body[field] === undefined) continue;
    delete body[field];
    warnings.push(`${field} not sent: ${why}.`);
  }
}

/**
 * The body's assistant messages beside the canonical ones they were written from: the encoder
 * writes one Chat assistant message per canonical one, in order (encode-messages.ts).
 */
export function assistantPairs(body: ChatBody, request: CanonicalRequest): Array<{ wire: Record<string, unknown>; message: Message; turn: number }> {
  const wire = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>).filter((message) => message?.role === 'assistant') : [];
  const pairs: Array<{ wire: Record<string, unknown>; message: Message; turn: number }> = [];
  let turn = 0;
  let index = 0;
  for (const message of request.messages) {
    if (message.role === 'user') turn++;
    if (message.role !== 'assistant') continue;
    const written = wire[index++];
    if (written) pairs.push({ wire: written, message, turn });
  }
  return pairs;
}

/** The readable reasoning an assistant message holds, joined; undefined when it holds none. */
export function reasoningTextOf(message: Message): string | undefined {
  const parts = message.content.filter((part) => part.type === 'reasoning');
  return parts.length ? parts.map((part) => part.text).join('') : undefined;
}
