import type { BackendType } from '../core/backend-types.js';
import type { CanonicalRequest, ForeignReasoningBlock, Message, Part, ReasoningPart } from '../core/request.js';
import { metadataOf, type ProviderName } from '../core/provider-metadata.js';
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

/** The namespaces that hold a provider's reasoning blob (core/provider-metadata.ts): another's is never this provider's to read. */
const BLOB_NAMESPACES: ReadonlySet<string> = new Set(['anthropic', 'openai', 'gemini', 'openrouter']);

const bare = (model: string): string => model.replace(/^models\//, '').replace(/^[\w.-]+\//, '').toLowerCase();

/** The reasoning a target is sent, and what of it the target's model cannot read. */
export interface ReasoningReplay {
  messages: Message[];
  /** Blobs another model wrote that this one cannot read. */
  unread: number;
  /** The models that wrote them, each once. */
  writers: string[];
  /** Of them, those sent as their visible text (another provider's, with text the client had). */
  asText: number;
  /** Of them, those left out (another provider's, with no text). */
  leftOut: number;
}

/**
 * The conversation as one target may replay it. A reasoning part whose writer the router knows (it
 * sealed it) and whose writer the target's model does not read (the catalog's lines) is handled as
 * its provider allows:
 * - a blob in the target's own provider namespace (`own`: a Claude thinking block to Claude) goes
 *   as it came. Anthropic drops a block its model cannot read before the model sees it, unbilled
 *   (whats-new-fable-5-1, "Earlier models can't read Claude Fable 5.1 thinking blocks"), and the
 *   blocks after it are bound to the conversation as sent ("Editing earlier turns invalidates
 *   thinking blocks"): removing it here would break them when the conversation moves back.
 * - another provider's blob goes as its visible text, plain, where the client had some (a summary
 *   it saw), and is left out otherwise, as the translators always left it out.
 * Each is counted for the warning. Everything else is untouched, so a conversation that stays on
 * one model is sent as it always was.
 */
export function reasoningFor(messages: Message[], type: BackendType | undefined, model: string, own?: ProviderName): ReasoningReplay {
  const replay: ReasoningReplay = { messages, unread: 0, writers: [], asText: 0, leftOut: 0 };
  let changed = false;
  const out = messages.map((message) => {
    if (message.role !== 'assistant' || !message.content.some(isUnreadable)) return message;
    const content = message.content.flatMap((part): Part[] => (isUnreadable(part) ? carried(part) : [part]));
    if (content.length === message.content.length && content.every((part, index) => part === message.content[index])) return message;
    changed = true;
    return { ...message, content };
  });
  if (changed) replay.messages = out;
  return replay;

  function isUnreadable(part: Part): part is ReasoningPart {
    if (part.type !== 'reasoning') return false;
    if (part.writer !== undefined) return readsReasoningOf(type, model, part.writer) === false;
    // Writer unknown (a Claude signature a Messages client replays as Anthropic sent it): another provider's blob is still not this one's.
    return own !== undefined && part.providerMetadata !== undefined && metadataOf(part.providerMetadata, own) === undefined && Object.keys(part.providerMetadata).some((name) => BLOB_NAMESPACES.has(name));
  }

  function carried(part: ReasoningPart): Part[] {
    replay.unread++;
    const writer = part.writer ?? 'another provider';
    if (!replay.writers.includes(writer)) replay.writers.push(writer);
    if (own !== undefined && metadataOf(part.providerMetadata, own) !== undefined) return [part];
    if (!part.text) {
      replay.leftOut++;
      return [];
    }
    replay.asText++;
    return [{ type: 'text', text: part.text }];
  }
}

/** The warning naming what the target does not read, once per request; undefined when nothing. */
export function unreadReasoningWarning(replay: ReasoningReplay, model: string): string | undefined {
  if (!replay.unread) return undefined;
  const blocks = replay.unread === 1 ? '1 reasoning block' : `${replay.unread} reasoning blocks`;
  const kept = replay.unread - replay.asText - replay.leftOut;
  const how = [
    kept ? `${kept} sent as ${kept === 1 ? 'it was' : 'they were'}, for its API to leave out` : '',
    replay.asText ? `${replay.asText} sent as plain text` : '',
    replay.leftOut ? `${replay.leftOut} left out` : '',
  ].filter(Boolean);
  return `reasoning from another model: ${model} does not read ${blocks} that ${replay.writers.join(', ')} wrote (${how.join('; ')}).`;
}

/**
 * The messages a translator encodes for one target: reasoningFor's, its warning added to the
 * encoder's and the request's note set (replaced on each encoding, as a backend's warnings are).
 */
export function replayableMessages(request: CanonicalRequest, type: BackendType, model: string, warnings: string[], own?: ProviderName): Message[] {
  const replay = reasoningFor(request.messages, type, model, own);
  const warning = unreadReasoningWarning(replay, model);
  if (warning) {
    warnings.push(warning);
    request.unreadReasoning = { blocks: replay.unread, writers: replay.writers };
  } else {
    delete request.unreadReasoning;
  }
  return replay.messages;
}

/**
 * The warning for reasoning another provider made that a forwarded body carries rewritten (a Messages
 * thinking block's or a Responses item's seal: src/formats/), as reasoningFor's for a translated one.
 */
export function foreignReasoningWarning(foreign: readonly ForeignReasoningBlock[], model: string): string {
  const writers = [...new Set(foreign.map((block) => block.writer ?? 'another provider'))];
  const asText = foreign.filter((block) => block.text).length;
  const how = [asText ? `${asText} sent as plain text` : '', foreign.length - asText ? `${foreign.length - asText} left out` : ''].filter(Boolean).join('; ');
  return `reasoning from another model: ${model} does not read ${foreign.length === 1 ? '1 reasoning block' : `${foreign.length} reasoning blocks`} that ${writers.join(', ')} wrote (${how}).`;
}
