import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { fakeSearch } from '../fakes/web-search.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { addBackend, Fakes, parseSse, SKU } from './support.js';

/**
 * Web search on every route: each client format's offer of search reaches every upstream type in
 * that upstream's own form (Anthropic's server tool, the Responses hosted tool, Gemini's
 * googleSearch), or, for an upstream with none (openai-chat), runs through the route's search
 * target; with neither, the request is a 400 naming the tool and the setting. The client gets the
 * search and its citations in its own format's form, streamed or not. The fakes search as their
 * provider documents (test/fakes/web-search.ts).
 */

let router: TestRouter;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await fakes.closeAll();
  router.config.update((settings) => {
    delete settings.routePolicies[SKU];
  });
});
afterAll(() => router.close());

type Format = 'messages' | 'responses' | 'chat' | 'gemini';
type Route = 'anthropic' | 'openai-responses' | 'gemini' | 'openai-chat+search' | 'openai-chat';
const FORMATS: Format[] = ['messages', 'responses', 'chat', 'gemini'];
const ROUTES: Route[] = ['anthropic', 'openai-responses', 'gemini', 'openai-chat+search', 'openai-chat'];
const PATHS: Record<Exclude<Format, 'gemini'>, string> = { responses: '/v1/responses', chat: '/v1/chat/completions', messages: '/v1/messages' };

const QUESTION = 'svc router news';
const ANSWER = 'Svc router routes.';
const FOUND = fakeSearch(QUESTION).map((result) => result.url);

/** Each format's own way of offering search. */
const OFFER: Record<Format, Record<string, unknown>> = {
  messages: { max_tokens: 300, messages: [{ role: 'user', content: QUESTION }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] },
  responses: { input: QUESTION, tools: [{ type: 'web_search' }], include: ['web_search_call.action.sources'] },
  chat: { messages: [{ role: 'user', content: QUESTION }], web_search_options: {} },
  gemini: { contents: [{ role: 'user', parts: [{ text: QUESTION }] }], tools: [{ googleSearch: {} }] },
};

async function post(format: Format, body: Record<string, unknown>) {
  // Gemini's API has the model and the stream in the path.
  const { stream, ...rest } = body;
  const target = format === 'gemini' ? `/v1beta/models/${SKU}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}` : PATHS[format];
  const response = await fetch(`${router.origin}${target}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${router.key}`, 'x-api-key': router.key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(format === 'gemini' ? rest : { model: SKU, ...body }),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

interface Served {
  upstream: FakeUpstream;
  /** The search target's fake, on the route that has one. */
  searcher?: FakeUpstream;
}

/** Routes the SKU as `route` says, each fake scripted to search where it can. */
async function serve(route: Route): Promise<Served> {
  if (route === 'openai-chat') return { upstream: (await fakes.routeSku(router, 'openai-chat', [{ text: ANSWER }])).fake };
  if (route === 'openai-chat+search') {
    const { fake } = await fakes.routeSku(router, 'openai-chat', [{ toolCalls: [{ id: 'call_search_1', name: 'web_search', arguments: { query: QUESTION } }] }, { text: ANSWER }]);
    const searcher = await fakes.start('gemini', [{ webSearch: {}, text: 'It routes, say both pages.' }]);
    addBackend(router, 'searcher', 'gemini', searcher.url);
    router.config.update((settings) => {
      settings.routePolicies[SKU] = { search: 'searcher:gemini-2.5-flash' };
    });
    return { upstream: fake, searcher };
  }
  return { upstream: (await fakes.routeSku(router, route, [{ webSearch: {}, text: ANSWER }])).fake };
}

/** What the client was given, read the same way from every format: the searches (query and pages), the text, the pages cited. */
interface Seen {
  searches: Array<{ query: string; urls: string[] }>;
  text: string;
  cited: string[];
  warnings: string[];
  /** Anthropic's usage.server_tool_use.web_search_requests, on Messages. */
  searchRequests?: number;
}

function seenMessages(body: any): Seen {
  const seen: Seen = { searches: [], text: '', cited: [], warnings: body.svc_meta?.warnings ?? [] };
  for (const block of body.content) {
    if (block.type === 'server_tool_use') seen.searches.push({ query: block.input.query, urls: [] });
    else if (block.type === 'web_search_tool_result') seen.searches.at(-1)!.urls = block.content.map((result: any) => result.url);
    else if (block.type === 'text') {
      seen.text += block.text;
      seen.cited.push(...(block.citations ?? []).map((citation: any) => citation.url));
    }
  }
  seen.searchRequests = body.usage.server_tool_use?.web_search_requests;
  return seen;
}

function seenMessagesStream(text: string): Seen {
  const events = parseSse(text).map((frame) => JSON.parse(frame.data));
  expect(events[0].type).toBe('message_start');
  expect(events.at(-1).type).toBe('message_stop');
  const blocks: any[] = [];
  let usage: any;
  let warnings: string[] = [];
  for (const event of events) {
    if (event.type === 'content_block_start') blocks[event.index] = { ...event.content_block, json: '', citations: [...(event.content_block.citations ?? [])] };
    else if (event.type === 'content_block_delta') {
      const block = blocks[event.index];
      if (event.delta.type === 'text_delta') block.text += event.delta.text;
      else if (event.delta.type === 'input_json_delta') block.json += event.delta.partial_json;
      else if (event.delta.type === 'citations_delta') block.citations.push(event.delta.citation);
    } else if (event.type === 'message_delta') {
      usage = event.usage;
      warnings = event.svc_meta?.warnings ?? [];
    }
  }
  const content = blocks.map((block) => (block.type === 'server_tool_use' ? { ...block, input: JSON.parse(block.json) } : block));
  return { ...seenMessages({ content, usage }), warnings };
}

function seenResponses(response: any): Seen {
  const seen: Seen = { searches: [], text: '', cited: [], warnings: response.svc_meta?.warnings ?? [] };
  for (const item of response.output) {
    if (item.type === 'web_search_call') {
      expect(item).toMatchObject({ id: expect.stringMatching(/^ws_/), status: 'completed', action: { type: 'search' } });
      seen.searches.push({ query: item.action.query, urls: (item.action.sources ?? []).map((source: any) => source.url) });
    } else if (item.type === 'message') {
      for (const part of item.content) {
        seen.text += part.text;
        seen.cited.push(...part.annotations.filter((annotation: any) => annotation.type === 'url_citation').map((annotation: any) => annotation.url));
      }
    }
  }
  return seen;
}

function seenResponsesStream(text: string): Seen {
  const events = parseSse(text).map((frame) => JSON.parse(frame.data));
  const types = events.map((event) => event.type);
  // A search's events in OpenAI's order, each with the item's id and output index.
  const added = events.find((event) => event.type === 'response.output_item.added' && event.item.type === 'web_search_call');
  if (added) {
    const life = events.filter((event) => event.item_id === added.item.id).map((event) => event.type);
    expect(life).toEqual(['response.web_search_call.in_progress', 'response.web_search_call.searching', 'response.web_search_call.completed']);
  }
  const sequence = events.map((event) => event.sequence_number);
  expect(sequence).toEqual(sequence.map((_, index) => index));
  expect(types.at(-1)).toBe('response.completed');
  const annotated = events.filter((event) => event.type === 'response.output_text.annotation.added').map((event) => event.annotation.url);
  const seen = seenResponses(events.at(-1).response);
  // Each citation was announced in the stream, as it is in the final response.
  expect(annotated).toEqual(seen.cited);
  return seen;
}

function seenChat(body: any): Seen {
  const message = body.choices[0].message;
  return {
    searches: searchesNamedIn(body.svc_meta?.warnings ?? []),
    text: message.content,
    cited: (message.annotations ?? []).map((annotation: any) => annotation.url_citation.url),
    warnings: body.svc_meta?.warnings ?? [],
  };
}

function seenChatStream(text: string): Seen {
  const frames = parseSse(text);
  expect(frames.at(-1)!.data).toBe('[DONE]');
  const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data));
  let content = '';
  const cited: string[] = [];
  for (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta ?? {};
    if (delta.content) content += delta.content;
    for (const annotation of delta.annotations ?? []) cited.push(annotation.url_citation.url);
  }
  const warnings = chunks.at(-1).svc_meta?.warnings ?? [];
  return { searches: searchesNamedIn(warnings), text: content, cited, warnings };
}

/** Chat has no form for a search: the router names each in svc_meta.warnings (its query; the pages are in the citations). */
const searchesNamedIn = (warnings: string[]) =>
  warnings.flatMap((warning) => (warning.includes('searched the web') ? [...warning.matchAll(/"([^"]+)"/g)].map((match) => ({ query: match[1]!, urls: [] as string[] })) : []));

/** Gemini's groundingMetadata: the queries, the pages (grounding chunks) and the passages cited (supports naming chunks). */
function seenGemini(body: any): Seen {
  const candidate = body.candidates[0];
  const grounding = candidate.groundingMetadata ?? {};
  const pages: string[] = (grounding.groundingChunks ?? []).map((chunk: any) => chunk.web.uri);
  return {
    searches: (grounding.webSearchQueries ?? []).map((query: string) => ({ query, urls: pages })),
    text: candidate.content.parts.filter((part: any) => !part.thought && part.text).map((part: any) => part.text).join(''),
    cited: (grounding.groundingSupports ?? []).flatMap((support: any) => support.groundingChunkIndices.map((index: number) => pages[index])),
    warnings: body.svc_meta?.warnings ?? [],
  };
}

/** A Gemini stream's chunks as one reply: every chunk's parts, the last chunk's grounding and svc_meta. */
function seenGeminiStream(text: string): Seen {
  const chunks = parseSse(text).map((frame) => JSON.parse(frame.data));
  const last = chunks.at(-1);
  expect(last.candidates[0].finishReason).toBe('STOP');
  const parts = chunks.flatMap((chunk) => chunk.candidates[0].content?.parts ?? []);
  return seenGemini({ ...last, candidates: [{ ...last.candidates[0], content: { parts } }] });
}

function seen(format: Format, stream: boolean, reply: { json: any; text: string }): Seen {
  if (format === 'gemini') return stream ? seenGeminiStream(reply.text) : seenGemini(reply.json);
  if (format === 'messages') return stream ? seenMessagesStream(reply.text) : seenMessages(reply.json);
  if (format === 'responses') return stream ? seenResponsesStream(reply.text) : seenResponses(reply.json);
  return stream ? seenChatStream(reply.text) : seenChat(reply.json);
}

/** Whether the upstream request offered the search in that upstream's own form. */
function offeredNatively(route: Route, body: any): boolean {
  const tools: any[] = body.tools ?? [];
  if (route === 'anthropic') return tools.some((tool) => tool.type === 'web_search_20250305' && tool.name === 'web_search');
  if (route === 'openai-responses') return tools.some((tool) => tool.type === 'web_search');
  if (route === 'gemini') return tools.some((tool) => tool.googleSearch !== undefined);
  return false;
}

describe.each(['messages', 'responses'] as const)('a %s client offering web search beside its own tools, on a route that cannot search', (format) => {
  const tool = format === 'messages' ? { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } } : { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } };
  it.each([false, true])('goes on without search, and says so and how to add it (streaming: %s)', async (stream) => {
    // Codex offers web_search on every turn: one it never calls must not fail the turn.
    const { upstream } = await serve('openai-chat');
    const offer = OFFER[format] as { tools: unknown[] };
    const reply = await post(format, { ...offer, tools: [tool, ...offer.tools], stream });
    expect(reply.status, reply.text).toBe(200);
    const sent = upstream.requests[0]!.body;
    expect(sent.tools.map((each: any) => each.function.name)).toEqual([format === 'messages' ? 'Bash' : 'exec_command']);
    expect(sent).not.toHaveProperty('web_search_options');
    const warning = decodeURIComponent(reply.headers.get('x-svc-warning') ?? '');
    expect(warning).toContain('not offered to the model');
    expect(warning).toContain(`svc-router routes search '${SKU}'`);
  });
});

describe.each(FORMATS)('a %s client offering web search', (format) => {
  describe.each(ROUTES)('over %s', (route) => {
    it.each([false, true])('streaming: %s', async (stream) => {
      const { upstream, searcher } = await serve(route);
      const reply = await post(format, { ...OFFER[format], stream });

      if (route === 'openai-chat' && format === 'chat') {
        // A Chat client's own web_search_options reach its Chat upstream as sent (OpenAI's search models take them).
        expect(reply.status, reply.text).toBe(200);
        expect(upstream.requests[0]!.body.web_search_options).toEqual({});
        return;
      }
      if (route === 'openai-chat') {
        // Neither search of its own nor a search target, and search is the request's one tool: refused in the client's format, naming the tool and the setting.
        expect(reply.status).toBe(400);
        const message: string = reply.json.error.message;
        if (format === 'messages') expect(reply.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
        else if (format === 'gemini') expect(reply.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
        else expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', param: format === 'chat' ? 'web_search_options' : 'tools[0]' });
        expect(message).toContain({ chat: 'web_search_options', messages: "'web_search_20250305'", responses: "'web_search'", gemini: "'googleSearch'" }[format]);
        expect(message).toContain(`svc-router routes search '${SKU}'`);
        expect(upstream.requests).toHaveLength(0);
        return;
      }
      expect(reply.status, reply.text).toBe(200);
      const got = seen(format, stream, reply);
      expect(got.text).toBe(ANSWER);
      expect(got.searches.map((search) => search.query)).toEqual([QUESTION]);
      // Chat carries no pages for a search; every other format gets those the search found.
      if (format !== 'chat') expect(got.searches[0]!.urls).toEqual(FOUND);
      if (format === 'messages') expect(got.searchRequests).toBe(1);

      if (route === 'openai-chat+search') {
        // The model was offered a search function, called it, and was given what the search target found.
        const [asked, answered] = upstream.requests;
        expect(upstream.requests).toHaveLength(2);
        expect(asked!.body.tools.map((tool: any) => tool.function.name)).toEqual(['web_search']);
        expect(asked!.body).not.toHaveProperty('web_search_options');
        const result = answered!.body.messages.at(-1);
        expect(result).toMatchObject({ role: 'tool', tool_call_id: 'call_search_1' });
        for (const url of FOUND) expect(result.content).toContain(url);
        // The search target got a search of its own, on the model's query.
        expect(searcher!.requests).toHaveLength(1);
        expect(searcher!.requests[0]!.body.tools).toEqual([{ googleSearch: {} }]);
        expect(JSON.stringify(searcher!.requests[0]!.body.contents)).toContain(QUESTION);
        // The function is the router's: the client never sees it.
        expect(reply.text).not.toContain('call_search_1');
        return;
      }
      expect(upstream.requests).toHaveLength(1);
      expect(offeredNatively(route, upstream.requests[0]!.body), JSON.stringify(upstream.requests[0]!.body.tools)).toBe(true);
      // The upstream's citation (the first page found) reaches the text.
      expect(got.cited).toEqual([FOUND[0]]);
    });
  });
});

describe('a replayed search', () => {
  it('a Messages client replays its search blocks; an Anthropic upstream gets them back, encrypted content and all', async () => {
    const { fake } = await fakes.routeSku(router, 'anthropic', [{ webSearch: {}, text: ANSWER }, { text: 'More.' }]);
    // Through a Chat-shaped detour is not needed: the first turn's reply is what the client replays.
    const first = await post('messages', OFFER.messages);
    const second = await post('messages', { ...OFFER.messages, messages: [{ role: 'user', content: QUESTION }, { role: 'assistant', content: first.json.content }, { role: 'user', content: 'more?' }] });
    expect(second.status).toBe(200);
    const replayed = fake.requests[1]!.body.messages[1].content;
    expect(replayed.map((block: any) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(replayed[1].content[0].encrypted_content).toMatch(/^enc_/);
  });

  it.each(['openai-chat', 'gemini'] as const)('a Messages client replaying a search over %s: the search reaches the model in words', async (kind) => {
    const { fake } = await fakes.routeSku(router, kind, [{ text: 'More.' }]);
    const search = [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: QUESTION } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: FOUND[0], title: 'T', encrypted_content: 'enc', page_age: null }] },
      { type: 'text', text: ANSWER },
    ];
    const reply = await post('messages', { max_tokens: 100, messages: [{ role: 'user', content: QUESTION }, { role: 'assistant', content: search }, { role: 'user', content: 'more?' }] });
    expect(reply.status).toBe(200);
    const sent = JSON.stringify(fake.requests[0]!.body);
    expect(sent).toContain(`Searched the web for \\"${QUESTION}\\"`);
    expect(sent).toContain(FOUND[0]);
  });
});

describe('the search the router serves', () => {
  it('stops at max_uses: a search past it is answered max_uses_exceeded and the function is no longer offered; each search is billed to the caller', async () => {
    const call = (id: string) => ({ toolCalls: [{ id, name: 'web_search', arguments: { query: QUESTION } }] });
    const { fake } = await fakes.routeSku(router, 'openai-chat', [call('call_1'), call('call_2'), { text: ANSWER }]);
    const searcher = await fakes.start('anthropic', [{ webSearch: {}, text: 'Found it.' }]);
    addBackend(router, 'searcher', 'anthropic', searcher.url);
    router.config.update((settings) => {
      settings.routePolicies[SKU] = { search: 'searcher:claude-x' };
    });
    const before = await router.app.ledger.summary('alice');
    const reply = await post('messages', { ...OFFER.messages, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }] });
    expect(reply.status, reply.text).toBe(200);
    const blocks = reply.json.content;
    expect(blocks.map((block: any) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(blocks[1].content.map((result: any) => result.url)).toEqual(FOUND);
    expect(blocks[3].content).toEqual({ type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' });
    // One search ran on the target; once it was used up, no round was offered the search.
    expect(searcher.requests).toHaveLength(1);
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['web_search']);
    expect(fake.requests[1]!.body.tools ?? []).toEqual([]);
    expect(fake.requests[2]!.body.tools ?? []).toEqual([]);
    // The call past the limit was answered with an error for the model.
    expect(fake.requests[2]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_2', content: expect.stringContaining('limit of 1') });
    // The client's request and the search each count as a request of the caller's.
    const after = await router.app.ledger.summary('alice');
    expect(after.requests - before.requests).toBe(2);
    // The rounds' usage is the reply's: all three calls to the model.
    expect(reply.json.usage.input_tokens).toBeGreaterThan(0);
  });
});

describe('a model that will not stop searching', () => {
  it.each([false, true])('is cut off after max_uses + 2 rounds, and the turn ends stopped (streaming: %s)', async (stream) => {
    const { fake } = await fakes.routeSku(router, 'openai-chat', (_body: unknown, index: number) => ({ toolCalls: [{ id: `call_${index}`, name: 'web_search', arguments: { query: QUESTION } }] }));
    const searcher = await fakes.start('openai-responses', [{ webSearch: {}, text: 'Found it.' }]);
    addBackend(router, 'searcher', 'openai-responses', searcher.url);
    router.config.update((settings) => {
      settings.routePolicies[SKU] = { search: 'searcher:gpt-x' };
    });
    const reply = await post('responses', { ...OFFER.responses, stream });
    expect(reply.status, reply.text).toBe(200);
    const response = stream ? parseSse(reply.text).map((frame) => JSON.parse(frame.data)).at(-1).response : reply.json;
    expect(response.status).toBe('completed');
    // Five searches by default: five run, the sixth and seventh calls are refused, and no more rounds.
    expect(searcher.requests).toHaveLength(5);
    expect(fake.requests).toHaveLength(7);
    const calls = response.output.filter((item: any) => item.type === 'web_search_call');
    expect(calls.map((item: any) => item.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'failed']);
    expect(response.svc_meta.warnings).toEqual(expect.arrayContaining([expect.stringContaining('kept searching past the limit of 5')]));
  });
});
