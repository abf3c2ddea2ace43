import type { RouterError } from './errors.js';
import type { FinishReason, Usage } from './reply.js';

/**
 * The canonical stream: backends turn upstream bytes into these, client encoders turn them into
 * their own event grammar. Blocks open and close in order; at most one text or reasoning block is
 * open at a time, while tool calls are identified by id so parallel calls may interleave.
 */
export type StreamEvent =
  | { type: 'start'; id?: string; usage?: Usage }
  | { type: 'text-start' }
  | { type: 'text-delta'; text: string }
  | { type: 'text-end' }
  | { type: 'reasoning-start' }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-end'; signature?: string; redactedData?: string; origin?: 'anthropic' | 'openai' }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-delta'; id: string; argumentsDelta: string }
  | { type: 'tool-call-end'; id: string }
  | { type: 'finish'; reason: FinishReason; usage: Usage }
  | { type: 'error'; error: RouterError };
