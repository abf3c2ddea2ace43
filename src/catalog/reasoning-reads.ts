import type { BackendType } from '../core/backend-types.js';
import type { CanonicalRequest, Message, Part, ReasoningPart } from '../core/request.js';
import { capabilityRow } from './model-capabilities.js';

/**
 * Whether a model reads back a reasoning blob (a thinking signature, encrypted reasoning, a thought
 * signature) that `writer` wrote: the same model always, else as the catalog's reasoning lines say
 * (model-capabilities.ts, `reasoningReads`). Undefined when the catalog has no line for one of the
 * two: the blob then goes back as the translator's own provider rule says, as it always has.
 */
export function readsReasoningOf(type: BackendType | undefined, reader: string, writer: string): boolean | undefined {
  if (bare(reader) === bare(writer)) return true;
  const own = capabilityRow(type, reader)?.capabilities.reasoningReads;
  const theirs = capabilityRow(undefined, writer)?.capabilities.reasoningReads;
  if (!own || !theirs) return undefined;
  return own.line === theirs.line || own.reads.includes(theirs.line);
}

const bare = (model: string): string => model.replace(/^models\//, '').replace(/^[\w.-]+\//, '').toLowerCase();

/** The reasoning a target is sent, and what was not replayed to it. */
export interface ReasoningReplay {
  messages: Message[];
  /** Blobs another model wrote that this one cannot read: left out, or sent as their visible text. */
  unread: number;
  /** The models that wrote them, each once. */
  writers: string[];
  /** Of them, those whose visible text went as plain text. */
  asText: number;
}

/**
 * The conversation as one target may replay it. A reasoning part whose writer the router knows
 * (sealed with it, or read from the session's history) and the target cannot read goes as its
 * visible text, plain, where the client had some (a summary the client saw), and is left out
 * otherwise: Anthropic would drop such a block unsaid (whats-new-fable-5-1, "When a request carries
 * a block the target model can't read … the API drops the block"), and other providers refuse a
 * blob they did not make. Everything else is untouched, so a conversation that stays on one model
 * is sent as it always was.
 */
export function reasoningFor(messages: Message[], type: BackendType | undefined, model: string): ReasoningReplay {
  const replay: ReasoningReplay = { messages, unread: 0, writers: [], asText: 0 };
  let changed = false;
  const out = messages.map((message) => {
    if (message.role !== 'assistant' || !message.content.some(isUnreadable)) return message;
    changed = true;
    return { ...message, content: message.content.flatMap((part): Part[] => (isUnreadable(part) ? replace(part) : [part])) };
  });
  if (changed) replay.messages = out;
  return replay;

  function isUnreadable(part: Part): part is ReasoningPart & { writer: string } {
    return part.type === 'reasoning' && part.writer !== undefined && readsReasoningOf(type, model, part.writer) === false;
  }

  function replace(part: ReasoningPart & { writer: string }): Part[] {
    replay.unread++;
    if (!replay.writers.includes(part.writer)) replay.writers.push(part.writer);
    if (!part.text) return [];
    replay.asText++;
    return [{ type: 'text', text: part.text }];
  }
}

/** The warning naming what reasoningFor did not replay, once per request; undefined when nothing. */
export function unreadReasoningWarning(replay: ReasoningReplay, model: string): string | undefined {
  if (!replay.unread) return undefined;
  const blocks = replay.unread === 1 ? '1 reasoning block' : `${replay.unread} reasoning blocks`;
  const how = replay.asText === replay.unread ? 'went as plain text' : replay.asText ? `went as plain text where the client had their text (${replay.asText}), and were left out otherwise` : 'were left out';
  return `reasoning from another model: ${blocks} that ${replay.writers.join(', ')} wrote ${how}: ${model} does not read ${replay.unread === 1 ? 'it' : 'them'}.`;
}

/**
 * The messages a translator encodes for one target: reasoningFor's, its warning added to the
 * encoder's and the request's note set (replaced on each encoding, as a backend's warnings are).
 */
export function replayableMessages(request: CanonicalRequest, type: BackendType, model: string, warnings: string[]): Message[] {
  const replay = reasoningFor(request.messages, type, model);
  const warning = unreadReasoningWarning(replay, model);
  if (warning) {
    warnings.push(warning);
    request.unreadReasoning = { blocks: replay.unread, writers: replay.writers };
  } else {
    delete request.unreadReasoning;
  }
  return replay.messages;
}
