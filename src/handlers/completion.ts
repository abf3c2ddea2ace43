import { toRouterError } from '../core/errors.js';
import { replyEvents } from '../core/reply-events.js';
import type { StreamEvent } from '../core/stream-events.js';
import { warn, warningHeader } from '../core/warnings.js';
import type { ClientFormat, Decoded } from '../formats/client-format.js';
import { admitAll, splitAtFinish } from '../policies/pipeline.js';
import type { ApiResponse } from './api.js';
import { policiesOf } from './app-policies.js';
import { type StartedStream } from './call-chain.js';
import { CompletionRun } from './completion-run.js';
import type { RequestContext } from './context.js';
import { completeOrForward, streamOrForward } from './forward/forward-chain.js';
import { forwardedStream } from './forward/forwarded-stream.js';
import { terminalCut } from './terminal-cut.js';

/** Most calls carry no query string; decoders only read it, so one empty instance serves them all. */
const NO_QUERY = new URLSearchParams();

/**
 * The one pipeline behind chat, responses and messages: decode in the client's format, route, let
 * the policies (src/policies/) admit the request, call the chain, encode back. Usage is recorded
 * exactly once, by the pipeline rather than the encoder, when it sees the reply or the stream's
 * `finish` (CompletionRun.finish); the stream the encoder sees ends at its first terminal event.
 */
export async function handleCompletion<Options>(context: RequestContext, format: ClientFormat<Options>): Promise<ApiResponse> {
  const { headers } = context.request;
  const { phases } = context;
  phases.completion = true;
  const decoded = format.decode(await context.request.readBody(context.settings.server.bodyLimitBytes), {
    secret: context.settings.secret ?? '',
    headers,
    params: context.params ?? {},
    query: context.request.query ? new URLSearchParams(context.request.query) : NO_QUERY,
  });
  keepForwardHeaders(format, decoded, headers);
  phases.begin('route');
  const run = new CompletionRun(context, format, decoded);
  phases.begin('admit');
  const admitting = admitAll(policiesOf(context.app), run, run.trace);
  run.admitted = admitting instanceof Promise ? await admitting : admitting;
  phases.begin('route');
  try {
    return decoded.stream ? await streamReply(run) : await jsonReply(run);
  } catch (error) {
    run.fail();
    throw error;
  }
}

/**
 * The client headers a same-format upstream is sent as they are (e.g. `anthropic-beta`), under
 * their own names: a required header the client sent under an alias (`vendor-version`) is kept as
 * the header it stands for.
 */
function keepForwardHeaders<Options>(format: ClientFormat<Options>, decoded: Decoded<Options>, headers: RequestContext['request']['headers']): void {
  if (!decoded.request.forwardBody || !format.forwardHeaders) return;
  const kept: Record<string, string> = {};
  for (const name of format.forwardHeaders) {
    let value = headers[name];
    for (const alias of format.requiredHeaders?.find((header) => header.name === name)?.aliases ?? []) value ||= headers[alias];
    if (value) kept[name] = value;
  }
  if (Object.keys(kept).length) decoded.request.forwardBody.headers = kept;
}

async function jsonReply<Options>(run: CompletionRun<Options>): Promise<ApiResponse> {
  // A same-format target forwards its upstream's reply as it came (src/handlers/forward/), when this request allows it.
  const { phases } = run.context;
  const forwarder = run.forwarder();
  phases.begin('upstream');
  const result = await completeOrForward(run.context, run.chain.targets, run.request, forwarder && run.format.name, run.chain.searchTarget);
  phases.begin('encode');
  run.answeredBy(result);
  // What the upstream said it did to the forwarded request (thinking it dropped) is told like the request's own warnings.
  if ('forwarded' in result.reply) noteForwarded(run, [result.reply.forwarded]);
  const headers = replyHeaders(run);
  // Recording the usage is the ledger's work: admit's, as its reservation was.
  phases.begin('admit');
  if ('forwarded' in result.reply) {
    run.finish(result.reply.forwarded.usage);
    await run.written();
    phases.begin('encode');
    const body = forwarder!.reply(result.reply.forwarded.text, run);
    return { status: 200, headers: withOverhead(headers, phases), body };
  }
  let reply = result.reply.reply;
  run.finish(reply.usage);
  await run.written();
  phases.begin('encode');
  // After the usage is recorded: a policy that refuses the reply does not unbill what the upstream did.
  if (run.admitted.inspects) {
    const held = run.admitted.inspect(replyEvents(reply));
    if (held) {
      // A policy waiting on its own upstream (a classifier) is upstream time too.
      phases.begin('upstream');
      await held;
      phases.begin('encode');
    }
    const providerMetadata = run.admitted.amendFinish(reply.providerMetadata);
    if (providerMetadata !== reply.providerMetadata) reply = { ...reply, ...(providerMetadata ? { providerMetadata } : {}) };
    // What a policy found in the reply (auto mode left without verdicts) is said like the rest.
    run.rereadWarnings();
    const warning = warningHeader(run.request);
    if (warning !== undefined) headers['x-svc-warning'] = warning;
  }
  const json = run.format.encodeReply(reply, run);
  return { status: 200, headers: withOverhead(headers, phases), json };
}

async function streamReply<Options>(run: CompletionRun<Options>): Promise<ApiResponse> {
  const { phases } = run.context;
  const forwarder = run.forwarder();
  phases.begin('upstream');
  const result = await streamOrForward(run.context, run.chain.targets, run.request, forwarder && run.format.name, run.chain.searchTarget);
  phases.begin('encode');
  run.answeredBy(result);
  if ('forwarded' in result.reply) noteForwarded(run, result.reply.forwarded.first.map((frame) => frame.note));
  const headers = replyHeaders(run);
  if (run.decoded.streamMediaType) headers['content-type'] = run.decoded.streamMediaType;
  if ('forwarded' in result.reply) {
    const sse = forwardedStream(result.reply.forwarded, run.seen, forwarder!.stream(run), (note) => {
      run.forwardedTerminal(note);
      return run.written();
    }, () => run.billSeen());
    return { status: 200, headers: withOverhead(headers, phases), sse };
  }
  const sse = run.format.encodeStream(translatedStream(result.reply.started, run), run);
  return { status: 200, headers: withOverhead(headers, phases), sse };
}

/** What a forwarded upstream said it did to the request (thinking it left out): in the warnings, and the sessions view's note. */
function noteForwarded<Options>(run: CompletionRun<Options>, notes: ReadonlyArray<{ warnings?: string[]; unreadReasoning?: number }>): void {
  for (const note of notes) {
    for (const warning of note.warnings ?? []) warn(run.request, warning);
    if (note.unreadReasoning) run.request.unreadReasoning = { blocks: note.unreadReasoning, writers: [] };
  }
}

/**
 * The reply's headers: each admission's (`x-ratelimit-*`) and `x-svc-warning`: what the request
 * asked that was not honoured (previous_response_id with no stored history, a setting the upstream
 * lacks), or what a policy found, for clients that never read svc_meta (every format, streams too).
 */
function replyHeaders<Options>(run: CompletionRun<Options>): Record<string, string> {
  const headers: Record<string, string> = run.admitted.headers ? { ...run.admitted.headers } : {};
  const warning = warningHeader(run.request);
  if (warning !== undefined) headers['x-svc-warning'] = warning;
  return headers;
}

/**
 * `x-svc-overhead-ms`: the router's own time so far, the sum of its phases (src/core/request-phases.ts)
 * up to the reply built (for a stream, its head), without the upstream's wait, so users can see what
 * routing costs on their own traffic. The write phase starts here; it is in the metrics, not the header.
 */
function withOverhead(headers: Record<string, string>, phases: RequestContext['phases']): Record<string, string> {
  phases.begin('write');
  headers['x-svc-overhead-ms'] = phases.overheadMs.toFixed(3);
  return headers;
}

/**
 * Passes the started stream on to the client's encoder, in one step: notes the latest usage and
 * how much output passed (to bill a stream that ends early), shows each batch to the policies that
 * read the reply (when one does: the events before a `finish` go on before the policies may hold
 * it, and the `finish` goes with what they add to it), hands on nothing after the first terminal
 * event (recording it first, see terminalCut), turns a backend that throws mid-stream into an
 * error event the encoder can render, and when the client stops reading releases the upstream at
 * once and bills what was seen.
 */
async function* translatedStream<Options>(started: StartedStream, run: CompletionRun<Options>): AsyncGenerator<StreamEvent[]> {
  const { seen, admitted } = run;
  const inspects = admitted.inspects;
  const note = (batch: StreamEvent[]) => {
    for (const event of batch) {
      if (event.type === 'start' && event.usage) seen.usage = event.usage;
      else if (event.type === 'text-delta' || event.type === 'reasoning-delta') seen.outputChars += event.text.length;
      else if (event.type === 'tool-call-delta') seen.outputChars += event.argumentsDelta.length;
    }
  };
  const cut = terminalCut((event) => run.terminal(event));
  /** A batch through the policies that read the reply, which may hold it and amend its finish. */
  async function* inspected(batch: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
    for (const piece of splitAtFinish(batch)) {
      const held = admitted.inspect(piece);
      if (held) await held;
      const out = cut(admitted.amended(piece));
      if (out) {
        // The batch that recorded the usage waits for its write (see CompletionRun.written).
        const written = run.written();
        if (written) await written;
        yield out;
      }
    }
  }
  try {
    if (started.first) {
      note(started.first);
      if (inspects) yield* inspected(started.first);
      else {
        const out = cut(started.first);
        if (out) {
          const written = run.written();
          if (written) await written;
          yield out;
        }
      }
    }
    for (let next = await started.rest.next(); !next.done; next = await started.rest.next()) {
      note(next.value);
      if (inspects) {
        yield* inspected(next.value);
        continue;
      }
      const out = cut(next.value);
      if (out) {
        const written = run.written();
        if (written) await written;
        yield out;
      }
    }
  } catch (error) {
    const out = cut([{ type: 'error', error: toRouterError(error) }]);
    if (out) {
      const written = run.written();
      if (written) await written;
      yield out;
    }
  } finally {
    await started.rest.return?.();
    run.billSeen();
  }
}
