import type { RouterError } from './errors.js';
import type { Usage } from './reply.js';
import type { CanonicalRequest, ForwardBody } from './request.js';

/**
 * Same-format forwarding: a client that speaks its upstream's own format gets the upstream's reply
 * as sent, with only the model name and svc_meta changed. These are the pieces a backend hands
 * over on that path, already read by its tap for what usage, errors and the stream's end need.
 */

/** One server-sent event as the upstream sent it: its `event:` name and its data lines joined. */
export interface WireFrame {
  event?: string;
  data: string;
}

/** What the tap read of one upstream frame; nothing else of it is parsed. */
export interface FrameNote {
  /** The upstream's usage so far, when this frame reported it. */
  usage?: Usage;
  /** Output characters the frame carried (text, reasoning, tool arguments): bills a stream cut short. */
  outputChars: number;
  /** The frame says the answer has finished (Chat's finish_reason). */
  finish?: boolean;
  /** The frame is there only for the router's accounting (Chat's usage chunk the client did not ask for). */
  usageOnly?: boolean;
  /** Nothing after this frame is for the client: the stream is over (the frame itself is still written unless it is Chat's `[DONE]`). */
  end?: boolean;
  /** The frame is the upstream's error, mapped and redacted as every upstream error is: the stream ends with it. */
  error?: RouterError;
  /** The event's own `type` as the tap read it (the last of duplicates, as JSON.parse keeps it), where the format's events carry one: the client's forwarder need not walk the frame for it again. */
  type?: string;
  /** The frame as the client is to get it, where the tap corrects what the upstream said (a Responses server's `completed` at the output cap). */
  replacement?: WireFrame;
  /** What the upstream reported doing to the request that the client is to be told (Anthropic's dropped thinking blocks). */
  warnings?: string[];
  /** Reasoning blocks the upstream reported it did not read, another model having written them (the sessions view). */
  unreadReasoning?: number;
}

export interface ForwardedFrame {
  /** Undefined only on the note that the upstream's body ended the stream well without a closing frame. */
  frame: WireFrame | undefined;
  note: FrameNote;
}

/** A non-streamed reply: its text (UTF-8, byte order mark removed, or as the tap corrected it) and the usage read from it. */
export interface ForwardedReply {
  text: string;
  usage: Usage;
  /** What the upstream reported doing to the request that the client is to be told, as FrameNote's. */
  warnings?: string[];
  unreadReasoning?: number;
}

/** Keeps the client's body for a same-format upstream: `request.forwardBody`. */
export function keepForwardBody(request: CanonicalRequest, forwardBody: ForwardBody): void {
  request.forwardBody = forwardBody;
}
