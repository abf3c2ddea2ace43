import type { Backend } from '../backends/backend.js';
import { collectReply } from '../core/collect-reply.js';
import type { ClientSignal } from '../core/client-signal.js';
import type { Reply, Usage } from '../core/reply.js';
import type { CanonicalRequest, Message, ToolResultPart, ToolSpec } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import { formatTarget, type Target } from '../core/target.js';
import { ROUTER_SEARCH_LIMIT, type WebSearchPart, type WebSearchResult, type WebSearchSpec } from '../core/web-search.js';
import { consultTargets } from './consult-route.js';
import { newId } from '../formats/shared/ids.js';
import type { RequestContext } from './context.js';

/**
 * Web search served by the router, for a target whose upstream has none of its own (an OpenAI
 * Chat server, the offline backend) on a route that names a search target (`routes search`).
 *
 * The model is offered one more function, the search; each call it makes is run on the search
 * target (a backend that searches natively, consulted as the caller's own request, so its tokens
 * are in the ledger), and its findings go back to the model as the call's result, until the model
 * answers without searching. The client sees what a provider's own search gives it: the text, a
 * search (query and pages found) where the model searched, and never the function itself. Searches
 * are bounded by the client's max_uses (else ROUTER_SEARCH_LIMIT); past it a call is answered
 * with the error Anthropic gives (`max_uses_exceeded`) and the function is no longer offered.
 */
export async function* servedSearchStream(
  context: RequestContext,
  backend: Backend,
  request: CanonicalRequest,
  upstreamModel: string,
  apiKey: string | undefined,
  searchTarget: Target,
): AsyncGenerator<StreamEvent[]> {
  const spec = request.webSearch!;
  const limit = spec.maxUses ?? ROUTER_SEARCH_LIMIT;
  const search = searchFunction(request.tools);
  const signal = context.request.signal;
  const { webSearch: _offered, forwardBody: _forwarded, ...rest } = request;
  let messages = request.messages;
  let used = 0;
  let usage: Usage | undefined;
  const warnings: string[] = [];
  let started = false;

  // One round per answer of the model; a round that searched is followed by one more, the search
  // is not offered past the limit, and a call made past it ends the turn: at most limit + 2 rounds.
  for (let round = 0; ; round++) {
    const offered = used < limit && round <= limit;
    const inner: CanonicalRequest = { ...rest, messages, tools: offered ? [...request.tools, search] : request.tools };
    const events: StreamEvent[] = [];
    const searchCalls = new Set<string>();
    let finish: Extract<StreamEvent, { type: 'finish' }> | undefined;
    for await (const batch of backend.stream({ request: inner, upstreamModel, signal, ...(apiKey ? { apiKey } : {}) })) {
      const out: StreamEvent[] = [];
      for (const event of batch) {
        events.push(event);
        if (event.type === 'start') {
          if (!started) out.push(event);
          started = true;
        } else if (event.type === 'finish') finish = event;
        else if (event.type === 'tool-call-start' && event.name === search.name) searchCalls.add(event.id);
        else if ((event.type === 'tool-call-delta' || event.type === 'tool-call-end') && searchCalls.has(event.id)) continue;
        else out.push(event);
      }
      if (out.length) yield out;
    }
    // The backend's own stream ends at its finish, or throws; nothing more to read here.
    if (!finish) return;
    usage = addUsage(usage, finish.usage);
    warnings.push(...(finish.warnings ?? []));
    // Each round's encoding may name settings it could not send: those are the request's too.
    if (inner.backendWarnings) request.backendWarnings = inner.backendWarnings;
    const answer = await collectReply(oneBatch(events));
    const calls = answer.content.filter((part) => part.type === 'tool-call' && searchCalls.has(part.id));
    if (!calls.length) {
      yield [{ ...finish, usage, ...(warnings.length ? { warnings: [...new Set(warnings)] } : {}) }];
      return;
    }
    const results: ToolResultPart[] = [];
    for (const call of calls) {
      if (call.type !== 'tool-call') continue;
      const query = queryOf(call.arguments);
      const allowed = used < limit;
      if (allowed) used++;
      // The search's own id: the function and its call id are the router's, never the client's to see.
      const id = newId('srvtoolu_');
      const ran = allowed
        ? await runSearch(context, request, searchTarget, id, query, signal)
        : { part: failed(id, query, 'max_uses_exceeded'), text: `No more searches: the limit of ${limit} is reached. Answer with what you found.`, warnings: [] };
      warnings.push(...ran.warnings);
      yield [{ type: 'web-search', part: ran.part }];
      results.push({ type: 'tool-result', callId: call.id, content: [{ type: 'text', text: ran.text }], ...(ran.part.errorCode ? { isError: true } : {}) });
    }
    // A round that also called the client's own tools ends the turn there: the client runs them,
    // and the searches, replayed next turn, tell the model what they found.
    if (answer.content.some((part) => part.type === 'tool-call' && !searchCalls.has(part.id))) {
      yield [{ ...finish, usage, ...(warnings.length ? { warnings: [...new Set(warnings)] } : {}) }];
      return;
    }
    // A model that still calls the search once it is no longer offered gets no more rounds: the
    // turn ends with what it said, stopped, not waiting on a call the client never saw.
    if (round > limit) {
      warnings.push(`The model kept searching past the limit of ${limit} searches; its answer ends there.`);
      yield [{ ...finish, reason: 'stop', finish: { unified: 'stop' }, usage, warnings: [...new Set(warnings)] }];
      return;
    }
    const assistant: Message = { role: 'assistant', content: answer.content.filter((part) => part.type !== 'web-search') };
    messages = [...messages, assistant, { role: 'tool', content: results }];
  }
}

/** The non-streamed reply of the same loop. */
export function servedSearchReply(context: RequestContext, backend: Backend, request: CanonicalRequest, upstreamModel: string, apiKey: string | undefined, searchTarget: Target): Promise<Reply> {
  return collectReply(servedSearchStream(context, backend, request, upstreamModel, apiKey, searchTarget));
}

/** The search function, under a name no client tool already has. */
function searchFunction(tools: readonly ToolSpec[]): ToolSpec {
  const names = new Set(tools.map((tool) => tool.name));
  let name = 'web_search';
  for (let n = 2; names.has(name); n++) name = `web_search_${n}`;
  return {
    name,
    description: 'Search the web for up-to-date information. Returns what the pages found say, with their titles and URLs; cite the URLs you rely on.',
    parameters: { type: 'object', properties: { query: { type: 'string', description: 'The search query.' } }, required: ['query'], additionalProperties: false },
  };
}

/**
 * One search on the search target: a request that offers its native search with the client's
 * options (at most one search), whose answer is the call's result for the model and whose pages
 * are the search's results for the client. What the target could not apply of the options comes
 * back as warnings.
 */
async function runSearch(
  context: RequestContext,
  request: CanonicalRequest,
  target: Target,
  id: string,
  query: string,
  signal: ClientSignal,
): Promise<{ part: WebSearchPart; text: string; warnings: string[] }> {
  const asked: CanonicalRequest = {
    model: request.model,
    system: [{ type: 'text', text: 'Search the web for the query and report what the pages found say, briefly and factually, naming each source.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: query }] }],
    tools: [],
    // The client's max_uses is the router's to keep (it counts the calls); the target searches as it sees fit for one query.
    webSearch: withoutMaxUses(request.webSearch!),
  };
  let reply: Reply;
  try {
    reply = await consultTargets(context, `${request.model} (web search on ${formatTarget(target)})`, [target], asked, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    return { part: failed(id, query, 'unavailable'), text: 'The search failed; answer without it, or try another query.', warnings: [`A web search on ${formatTarget(target)} failed: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const results: WebSearchResult[] = [];
  const seen = new Set<string>();
  const add = (result: WebSearchResult) => {
    if (!result.url || seen.has(result.url)) return;
    seen.add(result.url);
    results.push(result);
  };
  for (const part of reply.content) if (part.type === 'web-search') part.results.forEach(add);
  for (const part of reply.content) if (part.type === 'text') for (const citation of part.citations ?? []) add({ url: citation.url, ...(citation.title ? { title: citation.title } : {}) });
  const said = reply.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const sources = results.map((result) => `- ${result.title ? `${result.title}: ` : ''}${result.url}`).join('\n');
  const text = `${said || 'The search found nothing to report.'}${sources ? `\n\nSources:\n${sources}` : ''}`;
  return { part: { type: 'web-search', id, query, results }, text, warnings: asked.backendWarnings ?? [] };
}

function withoutMaxUses(spec: WebSearchSpec): WebSearchSpec {
  const { maxUses: _kept, ...rest } = spec;
  return rest;
}

const failed = (id: string, query: string, errorCode: string): WebSearchPart => ({ type: 'web-search', id, query, results: [], errorCode });

function queryOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { query?: unknown }).query === 'string') return (parsed as { query: string }).query;
  } catch {
    // Not JSON: the text itself is the query.
  }
  return args;
}

/** The rounds' usage summed: each round is a call of its own, billed for all its input. */
function addUsage(sum: Usage | undefined, next: Usage): Usage {
  if (!sum) return { ...next };
  const add = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const total: Usage = { inputTokens: sum.inputTokens + next.inputTokens, outputTokens: sum.outputTokens + next.outputTokens };
  const cached = add(sum.cachedInputTokens, next.cachedInputTokens);
  const written = add(sum.cacheWriteInputTokens, next.cacheWriteInputTokens);
  const reasoning = add(sum.reasoningTokens, next.reasoningTokens);
  if (cached !== undefined) total.cachedInputTokens = cached;
  if (written !== undefined) total.cacheWriteInputTokens = written;
  if (reasoning !== undefined) total.reasoningTokens = reasoning;
  return total;
}

async function* oneBatch(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  yield events;
}
