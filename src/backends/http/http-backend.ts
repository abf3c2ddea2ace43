import type { UpstreamRequest } from './upstream-client.js';
import type { BackendSettings } from '../../config/settings.js';
import { RouterError } from '../../core/errors.js';
import { CREDENTIAL_HEADER_NAME, redactError, redactText, rememberedSecrets, rememberSecret } from '../../core/redact.js';
import type { ForwardedFrame } from '../../core/forwarded.js';
import type { Reply } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { deadlines } from '../../core/timer-wheel.js';
import type { Backend, BackendCall, ForwardingBackend } from '../backend.js';
import type { ForwardTap } from './forward-tap.js';
import { pooledKeys, resolveApiKey } from './resolve-api-key.js';
import { decodeSse, type SseFrame } from './sse-decoder.js';
import type { UpstreamBody } from './upstream-exchange.js';
import { networkError } from './upstream-error.js';

/**
 * The HTTP client (undici) loads on a backend's first call, not when the backend registry is
 * imported: the CLI reads the registry for its list of types and should not pay for it.
 */
let upstreamClient: Promise<typeof import('./upstream-client.js')> | undefined;
let loadedClient: UpstreamClient | undefined;
type UpstreamClient = typeof import('./upstream-client.js');
/** The client module: once it is loaded, callers take `loadedClient` and skip a promise per call. */
const loadClient = (): Promise<UpstreamClient> => (upstreamClient ??= import('./upstream-client.js').then((client) => (loadedClient = client)));

/** What makes one kind of HTTP upstream differ from another; the calling is shared. */
export interface HttpBackendSpec {
  /** The client format the upstream speaks natively, if any (same-format calls forward the body). */
  wireFormat?: Backend['wireFormat'];
  /**
   * The endpoint URL for a configured base URL (no trailing slash), the upstream model and whether
   * the call streams: most upstreams have one URL, some put the model and the method in it.
   */
  url(baseUrl: string, model: string, stream: boolean): string;
  /** Auth and protocol headers for this call (the key, when the backend has one). */
  headers(key: string | undefined, request: CanonicalRequest, upstreamModel: string): Record<string, string>;
  /**
   * What of the request `headers` depends on, as a string: calls with the same key, mode and
   * variant are sent one headers object, built once (upstream-headers.ts). Undefined, or left out,
   * builds them per call.
   */
  headerVariant?(request: CanonicalRequest, upstreamModel: string): string | undefined;
  encode(request: CanonicalRequest, upstreamModel: string, stream: boolean): unknown;
  /** The body as text, when it is the client's own text with a member or two set (same-format, core/body-text.ts); undefined to encode it. */
  encodeText?(request: CanonicalRequest, upstreamModel: string, stream: boolean): string | undefined;
  decodeReply(backend: string, body: unknown, request: CanonicalRequest): Reply;
  decodeStream(backend: string, batches: AsyncIterable<SseFrame[]>, request: CanonicalRequest): AsyncIterable<StreamEvent[]>;
  /** The upstream answers a refusal with its own fallback model, when asked (Backend.runsServerFallback). */
  runsServerFallback?(upstreamModel: string): boolean;
  /** The tap for same-format forwarding (with `wireFormat`): the upstream's reply passes as it came. */
  forward?: ForwardTap;
  /** The upstream runs web search itself (Backend.nativeWebSearch). */
  nativeWebSearch?: boolean;
  /**
   * Sees the request exactly as it will be sent (URL, method, headers, body bytes) and returns
   * headers to add to it: a signature over those bytes (AWS Signature Version 4). Nothing changes
   * the request after it; a failure (no credentials) is the call's error.
   */
  sign?(request: OutgoingRequest): Promise<Record<string, string>>;
  /** Reads a streamed body as frames, for an upstream whose stream is not SSE (AWS event-stream); SSE otherwise. */
  frames?(body: AsyncIterable<Buffer>): AsyncIterable<SseFrame[]>;
  /**
   * Another way to the upstream for a streamed call (OpenAI's WebSocket mode): given the call's
   * headers and body, its frames as the HTTP stream would carry them, or undefined to send it over
   * HTTP. `done` says whether the caller read the stream to its end.
   */
  streamElsewhere?(call: BackendCall, headers: Record<string, string>, body: Record<string, unknown>): Promise<StreamOpened | undefined>;
}

/** A streamed call's frames, and what to do with its connection once the caller has read them. */
export interface StreamOpened {
  frames: AsyncIterable<SseFrame[]>;
  done(ended: boolean): void;
}

/** A request as it goes on the wire, for HttpBackendSpec.sign. */
export interface OutgoingRequest {
  url: string;
  method: 'POST';
  /** Every header the request carries but those the HTTP client adds itself (host, content-length). */
  headers: Record<string, string>;
  body: Buffer;
}

/** Model names come from clients (through routes): remember a bounded number of their URLs. */
const MAX_REMEMBERED_URLS = 1_000;
/** Header variants hold client values (a beta list): remember a bounded number of them, per backend. */
const MAX_REMEMBERED_HEADERS = 64;

/** How long a finished stream's upstream may take to end its response before it is cut off. */
const END_GRACE_MS = 500;
/** What a finished stream's upstream may still send (comments, pings) before it is cut off. */
const END_GRACE_BYTES = 64 * 1024;

async function* oneBatch(frames: SseFrame[]): AsyncGenerator<SseFrame[]> {
  yield frames;
}

/**
 * Reads what is left of a body whose stream has ended, discarding it, until the upstream ends the
 * response (the connection then stays open for reuse) or the grace runs out (it is destroyed).
 * Nothing waits for this.
 */
function releaseAfterEnd(body: UpstreamBody): void {
  if (body.ended) return;
  const timer = deadlines.after(END_GRACE_MS, () => body.destroy());
  void (async () => {
    let bytes = 0;
    try {
      for await (const chunk of body) {
        bytes += chunk.length;
        if (bytes > END_GRACE_BYTES) break;
      }
    } catch {
      // Destroyed by the grace timer, or the client left: either way, released.
    } finally {
      timer.cancel();
    }
  })();
}

/**
 * A backend that POSTs JSON to an upstream and decodes its JSON reply or SSE stream.
 *
 * This is also where upstream text is made safe to show: every error that leaves complete() or
 * stream(), thrown or as an error event, is redacted here with this backend's own key (and the
 * usual credential shapes), whichever part of the call produced it. Decoders may quote upstream
 * text freely; nothing they quote reaches a client, a log line or svc_meta without passing here.
 */
export function createHttpBackend(name: string, settings: BackendSettings, spec: HttpBackendSpec): Backend {
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');

  /** The values to scrub: the key as configured or as read from its environment variable. */
  function secretsOf(): string[] {
    let key: string | undefined;
    try {
      key = resolveApiKey(name, settings);
    } catch {
      key = undefined;
    }
    const secrets = key ? [key] : [];
    // Every key of a pool: an upstream may quote another key of the same account.
    for (const pooled of pooledKeys(settings)) if (pooled !== key) secrets.push(pooled);
    // Any key sent to any upstream, should one upstream quote another's (a gateway in front of several).
    for (const secret of rememberedSecrets()) if (secret !== key) secrets.push(secret);
    // A configured header may carry a credential too (a gateway's own key).
    for (const [header, value] of Object.entries(settings.headers ?? {})) {
      if (CREDENTIAL_HEADER_NAME.test(header) && typeof value === 'string') secrets.push(value.replace(/^(Bearer|Basic|Token)\s+/i, ''));
    }
    return secrets;
  }

  // One URL per upstream model and mode, built once: the same string each call also finds its parsed form at once.
  const urls = { json: new Map<string, string>(), stream: new Map<string, string>() };
  function urlFor(model: string, stream: boolean): string {
    const known = stream ? urls.stream : urls.json;
    let url = known.get(model);
    if (url === undefined) {
      url = spec.url(baseUrl, model, stream);
      if (known.size < MAX_REMEMBERED_URLS) known.set(model, url);
    }
    return url;
  }

  const safe = (error: unknown, call: BackendCall): RouterError => redactError(networkError(name, error, call.signal), secretsOf());

  const readFrames = spec.frames ?? decodeSse;

  /** Every header of a call, content type first; configured headers before the spec's, so they can add to but never replace the upstream's auth. */
  const buildHeaders = (key: string | undefined, request: CanonicalRequest, upstreamModel: string, stream: boolean): Record<string, string> =>
    Object.freeze({ 'content-type': 'application/json', ...settings.headers, ...spec.headers(key, request, upstreamModel), ...(stream ? { accept: 'text/event-stream' } : {}) });

  // The headers of a route's calls are the same call after call: built once per key, mode and variant, and sent as they are (never changed after).
  const builtHeaders = new Map<string, Record<string, string>>();
  function headersFor(key: string | undefined, request: CanonicalRequest, upstreamModel: string, stream: boolean): Record<string, string> {
    const variant = spec.headerVariant?.(request, upstreamModel);
    if (variant === undefined) return buildHeaders(key, request, upstreamModel, stream);
    const known = `${stream ? 's' : 'j'}${key ?? ''}\u0000${variant}`;
    let headers = builtHeaders.get(known);
    if (headers === undefined) {
      headers = buildHeaders(key, request, upstreamModel, stream);
      if (builtHeaders.size >= MAX_REMEMBERED_HEADERS) builtHeaders.clear();
      builtHeaders.set(known, headers);
    }
    return headers;
  }

  function bodyOf(call: BackendCall, stream: boolean): { body: unknown } | { body: undefined; bodyText: string } {
    const text = spec.encodeText?.(call.request, call.upstreamModel, stream);
    return text === undefined ? { body: spec.encode(call.request, call.upstreamModel, stream) } : { body: undefined, bodyText: text };
  }

  function send(client: UpstreamClient, call: BackendCall, stream: boolean) {
    const key = call.apiKey ?? resolveApiKey(name, settings);
    if (key) rememberSecret(key);
    const url = urlFor(call.upstreamModel, stream);
    const headers = headersFor(key, call.request, call.upstreamModel, stream);
    const request = { backend: name, url, typed: true, signal: call.signal, secrets: key ? [key] : [], ...(settings.timeouts ? { timeouts: settings.timeouts } : {}) };
    if (spec.sign) return sendSigned(client, request, headers, bodyOf(call, stream));
    return client.postJson({ ...request, headers, ...bodyOf(call, stream) });
  }

  /** Signed bytes are sent as they are: serialised once, here, not again by the client. */
  async function sendSigned(client: UpstreamClient, request: Omit<UpstreamRequest, 'headers' | 'body'>, headers: Record<string, string>, body: ReturnType<typeof bodyOf>) {
    const bytes = Buffer.from('bodyText' in body ? body.bodyText : JSON.stringify(body.body));
    const signature = await spec.sign!({ url: request.url, method: 'POST', headers, body: bytes });
    return client.postJson({ ...request, headers: { ...headers, ...signature }, body: bytes });
  }

  /**
   * Sends a streamed call; its frames, read from a view of the body that does not end the
   * exchange when the decoder stops: `done` decides that, once the caller knows whether the stream
   * ended well (released for reuse, or destroyed).
   */
  async function openStream(call: BackendCall): Promise<StreamOpened> {
    if (spec.streamElsewhere) {
      try {
        const key = call.apiKey ?? resolveApiKey(name, settings);
        const body = bodyOf(call, true);
        const opened = await spec.streamElsewhere(call, headersFor(key, call.request, call.upstreamModel, true), ('bodyText' in body ? JSON.parse(body.bodyText) : body.body) as Record<string, unknown>);
        if (opened) return opened;
      } catch (error) {
        throw safe(error, call);
      }
    }
    let response;
    try {
      response = await send(loadedClient ?? (await loadClient()), call, true);
    } catch (error) {
      throw safe(error, call);
    }
    const body = response.body;
    const chunks = body[Symbol.asyncIterator]();
    const view = { [Symbol.asyncIterator]: () => ({ next: () => chunks.next() }) };
    return { frames: readFrames(view), done: (ended) => (ended ? releaseAfterEnd(body) : body.destroy()) };
  }

  /** The error an upstream's error frame is, exactly as the stream decoder maps it (none if the decoder reads no error there). */
  async function frameError(frame: SseFrame, request: CanonicalRequest): Promise<unknown> {
    try {
      for await (const _ of spec.decodeStream(name, oneBatch([frame]), request));
    } catch (error) {
      return error;
    }
    return undefined;
  }

  function forwarding(tap: ForwardTap): ForwardingBackend {
    return {
      async complete(call) {
        try {
          const client = loadedClient ?? (await loadClient());
          const { text, json } = await client.readJsonText(name, await send(client, call, false), call.signal);
          // A body that is no reply goes to the decoder, which says what the upstream reported (or estimates missing usage).
          const usage = tap.replyUsage(name, json) ?? spec.decodeReply(name, json, call.request).usage;
          return { text: tap.correctedReply?.(json, call.request) ?? text, usage, ...tap.replyNotes?.(json) };
        } catch (error) {
          throw safe(error, call);
        }
      },
      async *stream(call) {
        const opened = await openStream(call);
        const reader = tap.stream(name, call.request);
        let ended = false;
        try {
          for await (const frames of opened.frames) {
            const out: ForwardedFrame[] = [];
            for (const frame of frames) {
              let note;
              try {
                note = reader.read(frame);
              } catch (error) {
                // As the decoders do: the frames before the one that broke still go out, then the error.
                if (out.length) yield out;
                throw error;
              }
              if (note !== 'error') {
                out.push({ frame: note.replacement ?? frame, note });
                if (note.end) {
                  ended = true;
                  break;
                }
                continue;
              }
              const error = await frameError(frame, call.request);
              if (error === undefined) {
                out.push({ frame, note: { outputChars: 0 } });
                continue;
              }
              out.push({ frame, note: { outputChars: 0, error: safe(error, call) } });
              yield out;
              return;
            }
            if (out.length) yield out;
            if (ended) return;
          }
          const cutOff = reader.atEnd();
          if (cutOff) throw cutOff;
          ended = true;
          yield [{ frame: undefined, note: { outputChars: 0, end: true } }];
        } catch (error) {
          throw safe(error, call);
        } finally {
          // As stream() does: a stream that ended well lets the upstream finish its response.
          opened.done(ended);
        }
      },
    };
  }

  return {
    name,
    ...(spec.wireFormat ? { wireFormat: spec.wireFormat } : {}),
    ...(spec.wireFormat && spec.forward ? { forward: forwarding(spec.forward) } : {}),
    ...(spec.runsServerFallback ? { runsServerFallback: spec.runsServerFallback } : {}),
    ...(spec.nativeWebSearch ? { nativeWebSearch: true } : {}),
    async complete(call): Promise<Reply> {
      let reply: Reply;
      try {
        const client = loadedClient ?? (await loadClient());
        const response = await send(client, call, false);
        reply = spec.decodeReply(name, await client.readJson(name, response, call.signal), call.request);
      } catch (error) {
        throw safe(error, call);
      }
      if (reply.id !== undefined) reply.id = redactText(reply.id, secretsOf());
      return reply;
    },
    async *stream(call): AsyncGenerator<StreamEvent[]> {
      const opened = await openStream(call);
      let complete = false;
      try {
        for await (const batch of spec.decodeStream(name, opened.frames, call.request)) {
          for (let i = 0; i < batch.length; i++) {
            const event = batch[i]!;
            if (event.type === 'error') batch[i] = { type: 'error', error: redactError(event.error, secretsOf()) };
            else if (event.type === 'start' && event.id !== undefined) batch[i] = { ...event, id: redactText(event.id, secretsOf()) };
          }
          yield batch;
        }
        complete = true;
      } catch (error) {
        throw safe(error, call);
      } finally {
        // The decoder stopped at the terminal event: the client has its ending already. Let the
        // upstream's own end (usually in the same burst) arrive, so its connection is kept for
        // the next call, but release it soon whatever it does. Any other way out releases it now.
        opened.done(complete);
      }
    },
  };
}
